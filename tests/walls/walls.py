#!/usr/bin/env python3
"""walls.py - the include walls between memtrend's layers (docs/design.md,
"What is enforced"), checked over the sources as text.

The build already refuses a quoted include of a layer that a layer may not
use: each layer's include path names only its own folder and those of
layer_below (top meson.build), and no target has implicit include
directories. What no compiler option can refuse is checked here:

  - a quoted include found beside the including file, "../probe/smaps.h"
    (a compiler looks in the including file's folder before any -I), and
    one through the project root, "src/probe/prom_auth.h" (in case a -I
    names the root again): both refused in src/, tests/ and bench/;
  - in src/, a third-party header outside the module that owns it
    (OWNERS below: one table, the only place that says who may include
    what), since the system include directory is on every layer's path;
    an angle-bracket header that is neither a system header (SYSTEM) nor
    in OWNERS is refused too, so a new library gets an owner before it
    gets a user (tests and benchmarks may include what they check);
  - a quoted include in src/LAYER/ that names no header of LAYER or of
    the layers it may use (a header of another layer that the include
    path would not find is a build error already; this says which wall);
  - the tables themselves: every folder of src/ is a layer the build
    knows, and a layer may use everything the layers it uses may use
    (layer_below closed), so the link check's program for a layer
    resolves with what layer_below lists.

Usage (tests/meson.build passes the tables of the top meson.build):
  walls.py ROOT LAYER=BELOW,BELOW ... cmd=*
Exits 0 when every wall holds, 1 with one line per breach (FILE:LINE:
what), 2 on bad usage. Fast: reads each source file once.
"""
import os
import re
import sys

# Third-party headers and who may include them: a header name, or a
# prefix ending in "/" for a library's folder of headers, -> the files or
# folders (ending in "/") under the project root that may. Each owner is
# also the only layer that links the library (layer_deps, top meson.build).
OWNERS = {
    "sqlite3.h": ["src/store/"],                 # the recording file
    "curl/": ["src/http/http.c"],                # the HTTP client
    "yajl/": ["src/remote/prometheus.c"],        # Prometheus API's JSON
    "jansson.h": ["src/render/"],                # the JSON reports
    "protobuf-c/": ["src/render/render_pprof.c"], # report --pprof
    "microhttpd.h": ["src/serve/listener.c"],    # record --listen's server
    "dlfcn.h": ["src/probe/",                    # NVML, the allocator probe
                "src/shim/shim.c"],              # the preloaded sampler
    "elfutils/": ["src/record/sites_symbols.c"], # allocation sites' names
    "bpf/": ["src/record/sampler_sites_bpf.c",   # record --sites -p (eBPF)
             "src/record/sites_bpf.bpf.c"],      # its kernel half
    "capstone/": ["src/record/uprobe_point.c"],  # where its free probe goes
    "gelf.h": ["src/record/uprobe_point.c"],     # ... read from the ELF
    "libelf.h": ["src/record/uprobe_point.c"],
}

# The C library, POSIX and Linux: any layer may include these.
SYSTEM = set("""
assert.h complex.h ctype.h errno.h fenv.h float.h inttypes.h iso646.h
limits.h locale.h math.h setjmp.h signal.h stdalign.h stdarg.h stdatomic.h
stdbool.h stddef.h stdint.h stdio.h stdlib.h stdnoreturn.h string.h
tgmath.h threads.h time.h uchar.h wchar.h wctype.h
aio.h cpio.h dirent.h fcntl.h fnmatch.h glob.h grp.h iconv.h langinfo.h
libgen.h monetary.h netdb.h nl_types.h poll.h pthread.h pwd.h regex.h
sched.h search.h semaphore.h spawn.h strings.h syslog.h tar.h termios.h
ulimit.h unistd.h utime.h utmpx.h wordexp.h ifaddrs.h
malloc.h link.h elf.h getopt.h execinfo.h byteswap.h endian.h err.h
features.h mntent.h paths.h alloca.h
""".split())
SYSTEM_DIRS = ("sys/", "arpa/", "netinet/", "net/", "linux/", "asm/",
               "bits/")

# Headers the build generates, by the layer whose build makes them
# (src/render/meson.build, src/record/meson.build).
GENERATED = {"render_html_assets.h": "render", "profile.pb-c.h": "render",
             "sites_bpf.skel.h": "record"}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def owner_of(header):
    for name, owners in OWNERS.items():
        if header == name or (name.endswith("/") and
                              header.startswith(name)):
            return name, owners
    return None, None


def allowed(path, owners):
    return any(path == o or (o.endswith("/") and path.startswith(o))
               for o in owners)


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1]
    below = {}
    for arg in argv[2:]:
        name, _, rest = arg.partition("=")
        if not name or not _:
            print("walls.py: '%s' is not LAYER=BELOW,..." % arg,
                  file=sys.stderr)
            return 2
        below[name] = None if rest == "*" else \
            [b for b in rest.split(",") if b]
    breaches = []

    # The tables: every folder of src/ a layer, layer_below closed.
    src = os.path.join(root, "src")
    folders = sorted(d for d in os.listdir(src)
                     if os.path.isdir(os.path.join(src, d)))
    for d in folders:
        if d not in below:
            breaches.append("src/%s/: a folder that is no layer of the "
                            "build (layer_src, layer_below)" % d)
    for name, bs in below.items():
        if bs is None:
            continue
        for b in bs:
            if b not in below:
                breaches.append("layer_below['%s']: '%s' is no layer"
                                % (name, b))
                continue
            for bb in below[b] or []:
                if bb not in bs:
                    breaches.append(
                        "layer_below['%s']: uses %s, which uses %s: "
                        "list %s too" % (name, b, bb, bb))

    # Each layer's headers, for the quoted includes.
    headers = {}
    for d in folders:
        headers[d] = {f for f in os.listdir(os.path.join(src, d))
                      if f.endswith(".h")}
    for h, layer in GENERATED.items():
        headers.setdefault(layer, set()).add(h)

    files = []
    for top in ("src", "tests", "bench"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root,
                                                                 top)):
            # fixtures are data; node_modules is what npm installed for
            # the e2e tests (the inference runtime's own C++ sources)
            dirnames[:] = sorted(d for d in dirnames
                                 if d not in ("fixtures", "node_modules"))
            for f in sorted(filenames):
                if f.endswith((".c", ".h")):
                    files.append(os.path.join(dirpath, f))
    for path in files:
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        parts = rel.split("/")
        layer = parts[1] if parts[0] == "src" and len(parts) > 2 else None
        with open(path, encoding="utf-8", errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                kind, h = m.groups()
                where = "%s:%d" % (rel, n)
                if kind == '"':
                    if h.startswith("../") or "/../" in h or \
                       h.startswith("./"):
                        breaches.append("%s: \"%s\": a path around the "
                                        "walls (include a header by its "
                                        "name)" % (where, h))
                        continue
                    if h.startswith("src/") or "/" in h and layer:
                        breaches.append("%s: \"%s\": a path from the "
                                        "project root (include a header "
                                        "by its name)" % (where, h))
                        continue
                    if layer and below.get(layer, []) is not None:
                        seen = [layer] + below.get(layer, [])
                        if not any(h in headers.get(x, ()) for x in seen):
                            home = [x for x in folders
                                    if h in headers.get(x, ())]
                            breaches.append(
                                "%s: \"%s\": %s may not use %s" %
                                (where, h, layer,
                                 ", ".join(home) if home else
                                 "a header no layer has"))
                    continue
                if parts[0] != "src":
                    continue    # a test may read what it checks
                name, owners = owner_of(h)
                if name:
                    if not allowed(rel, owners):
                        breaches.append("%s: <%s>: only %s may include "
                                        "it (tests/walls/walls.py, "
                                        "OWNERS)" % (where, h,
                                                     ", ".join(owners)))
                elif h not in SYSTEM and not h.startswith(SYSTEM_DIRS):
                    breaches.append("%s: <%s>: a header with no owner: "
                                    "say in OWNERS (tests/walls/walls.py) "
                                    "which module may include it, or in "
                                    "SYSTEM that it is the C library's"
                                    % (where, h))
    for b in breaches:
        print(b)
    if breaches:
        print("walls: %d breach%s" % (len(breaches),
                                      "" if len(breaches) == 1 else "es"),
              file=sys.stderr)
        return 1
    print("walls: %d files, %d layers: every wall holds"
          % (len(files), len(below)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
