# Thin front for meson: the README's two commands.
#   make demo   - install missing Debian build deps, build, run the demo
#   make test   - build (normal + ASan/UBSan) and run every suite in both
#   make test-loaded - make test with the cores kept busy (stress-ng --cpu,
#                  LOAD_CPUS workers, default: one per core)
#   make bench  - run the benchmarks (bench/run.sh)
#   make calibrate - the verdicts' calibration table (both groups, 500 seeds)
#                    and check's advice table (docs/check.md, 200 seeds)
#   make fuzz   - the libFuzzer harnesses, FUZZ_SECONDS (60) each (clang)
#   make analyze - gcc -fanalyzer over every source file
#   WERROR=1    - warnings are errors (CI sets it)
BUILD ?= build
SAN   ?= build-san
WERROR ?=
MESON_WERROR := $(if $(WERROR),--werror,)
LOAD_CPUS ?= $(shell nproc)

.PHONY: all deps test-deps demo test test-loaded unit bench calibrate fuzz analyze clean

all: $(BUILD)/build.ninja
	ninja -C $(BUILD)

deps:
	@./scripts/install-deps.sh

test-deps:
	@./scripts/install-deps.sh --quiet

$(BUILD)/build.ninja:
	@./scripts/install-deps.sh --quiet --build-only
	meson setup $(BUILD) --buildtype=debugoptimized $(MESON_WERROR)

$(SAN)/build.ninja:
	@./scripts/install-deps.sh --quiet --build-only
	meson setup $(SAN) --buildtype=debug -Db_sanitize=address,undefined -Db_lundef=false $(MESON_WERROR)

demo: all
	./$(BUILD)/memtrend demo

# The test dependencies first, then a reconfigure: a build set up by
# `make demo` (build dependencies only) did not see cmocka.
test: test-deps all $(SAN)/build.ninja
	@meson setup --reconfigure $(BUILD) > /dev/null
	@meson setup --reconfigure $(SAN) > /dev/null
	ninja -C $(BUILD)
	ninja -C $(SAN)
	meson test -C $(BUILD) --print-errorlogs --num-processes 2
	meson test -C $(SAN) --print-errorlogs --num-processes 2
	@./scripts/test-summary.sh $(BUILD) $(SAN)

# The same suites on a busy machine: no test may depend on how fast its
# processes run (issue 27). WERROR passes through.
test-loaded: test-deps
	./scripts/test-loaded.sh $(LOAD_CPUS) $(MAKE) test

bench: all
	./bench/run.sh

calibrate: all
	./$(BUILD)/tests/calibrate
	./$(BUILD)/tests/gate_advice --seeds 200 --ratio 1.5 --ratio 3 --ratio 6

fuzz:
	@./scripts/install-deps.sh --quiet
	./scripts/fuzz.sh

analyze:
	./scripts/analyze.sh

clean:
	rm -rf $(BUILD) $(SAN) build-fuzz
