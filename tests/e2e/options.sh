# Options are defined once (src/cmd/cli_options.h): every option of every
# command's table is in its --help and documented in its man page section,
# and the man page names no option the command does not have
# (tests/helpers/check_options.py).
. "$E2E_LIB"
ROOT=$(cd "$(dirname "$E2E_LIB")/../.." && pwd)
"$PY" "$ROOT/tests/helpers/check_options.py" "$MEMTREND" "$ROOT/docs/memtrend.1" ||
	fail "the option tables, --help and the man page disagree"
ok "options, --help and the man page agree"
