#!/usr/bin/env python3
"""check_options.py MEMTREND MANPAGE - hold --help and the man page to the
option tables (src/cmd/cli_options.h), as `memtrend --list-options` prints them.

For every visible option of every command:
  - `memtrend CMD --help` names it ("--name", and "-x" for a short form);
  - the man page's section of that command (".SS CMD"; watch may rely on
    record's, which its section says it shares) documents it ("\\-\\-name").
And the other way: every option that a line of `memtrend CMD --help`
starts with ("  -o, --output FILE", "  --json") and every option a ".TP"
item of a command's section names exists in that command's table.
Prints each problem; exits 1 if any.
"""
import re
import subprocess
import sys

memtrend, manpage = sys.argv[1], sys.argv[2]
listed = subprocess.run([memtrend, "--list-options"], check=True,
                        capture_output=True, text=True).stdout.splitlines()
opts = {}
for line in listed:
    words = line.split()
    cmd, name = words[0], words[1]
    short = words[-1] if re.fullmatch(r"-[A-Za-z]", words[-1]) else None
    opts.setdefault(cmd, []).append((name, short))

man = open(manpage, encoding="utf-8").read().splitlines()
sections, current = {}, None
for line in man:
    if line.startswith(".SS "):
        current = line[4:].strip()
        sections[current] = []
    elif line.startswith(".SH "):
        current = None
    elif current:
        sections[current].append(line)

problems = []


def man_names(lines):
    """Options named anywhere in a section, and those of its .TP items."""
    text = "\n".join(lines).replace("\\-", "-")
    anywhere = set(re.findall(r"--[a-z][a-z0-9-]*", text))
    items = set()
    for i, line in enumerate(lines[:-1]):
        if line.strip() == ".TP":
            items |= set(re.findall(r"--[a-z][a-z0-9-]*",
                                    lines[i + 1].replace("\\-", "-")))
    return anywhere, items


for cmd, names in opts.items():
    helptext = subprocess.run([memtrend, cmd, "--help"], capture_output=True,
                              text=True).stdout
    sec = sections.get(cmd)
    if sec is None:
        problems.append(f"man page: no '.SS {cmd}' section")
        continue
    anywhere, items = man_names(sec)
    if cmd == "watch":  # "all of record's options": record's section counts
        more, _ = man_names(sections.get("record", []))
        anywhere |= more
    for name, short in names:
        if not re.search(re.escape(name) + r"(?![a-z0-9-])", helptext):
            problems.append(f"{cmd} --help: {name} missing")
        if short and not re.search(r"(^|\s)" + re.escape(short) + r",",
                                   helptext, re.M):
            problems.append(f"{cmd} --help: {short} missing")
        if name not in anywhere and name != "--help":
            problems.append(f"man page, section {cmd}: {name} undocumented")
    known = {n for n, _ in names}
    listed_in_help = set(re.findall(r"^  (?:-[A-Za-z], )?(--[a-z][a-z0-9-]*)",
                                    helptext, re.M))
    for name in sorted(listed_in_help - known):
        problems.append(f"{cmd} --help: {name} is not an option of {cmd}")
    for name in sorted(items - known):
        problems.append(f"man page, section {cmd}: {name} is not an "
                        f"option of {cmd}")

for p in problems:
    print("FAIL:", p)
n = sum(len(v) for v in opts.values())
print(f"options: {n} options of {len(opts)} commands checked, "
      f"{len(problems)} problem(s)")
sys.exit(1 if problems else 0)
