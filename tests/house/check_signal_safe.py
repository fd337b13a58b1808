#!/usr/bin/env python3
"""The runtime's signal-safe files name no C++ library header that allocates (issue 37).

  check_signal_safe.py SOURCE_DIR BUILD_DIR

Code that a sampling signal can reach runs inside whatever the program was doing, malloc's lock
included: it allocates nothing and takes no lock it might already hold. The files whose code runs
there are listed in tests/house/signal_safe.txt. Each is preprocessed as the build compiles it
(BUILD_DIR/compile_commands.json, with -H: the compiler's own list of what it opens) and every C++
library header that the file or a project header it includes names directly must be one of the
freestanding ones below: no <string>, <vector>, <map>, <functional>, <memory>, <algorithm>, ...
(what those headers include in turn is the library's business: GCC 12's <atomic> reaches
<system_error> through its wait support). A header-only file is checked through the first listed
source that includes it. C headers are not restricted here (which libc calls a handler may make
is a matter of each call, documented where it is made).

The same rule as -nostdinc++ with a freestanding set (compiler-rt's way), checked without
rewriting std::atomic: with GCC 12 the whole of <atomic> cannot be had without <string>.
Python standard library only. Exit status: 0 pass, 1 fail, 2 usage.
"""

import json
import os
import re
import shlex
import subprocess
import sys

FREESTANDING = {
    "atomic", "bit", "cstddef", "cstdint", "climits", "cstring", "cerrno", "cstdarg", "limits",
    "new", "type_traits", "utility", "initializer_list", "compare", "concepts", "array", "cstdlib",
    "cstdio", "cinttypes", "csignal", "csetjmp",
}
DEPTH = re.compile(r"^(\.+) (.*)$")


# The runtime's two targets: what the unit tests link, and what only the preloaded library has
# (the handler's entry, the classification, which need the thread list).
RUNTIME_TARGETS = ("hpcrun_rt_core.dir", "hpcrun-lite-rt.dir")


def library_header(path):
    return "/c++/" in path


def check(src, build):
    with open(os.path.join(src, "tests/house/signal_safe.txt"), encoding="utf-8") as f:
        listed = [l.split("#")[0].strip() for l in f]
    listed = [l for l in listed if l]
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        commands = {os.path.realpath(e["file"]): e for e in json.load(f)
                    if any(t in e.get("command", "") for t in RUNTIME_TARGETS)}
    problems, checked = [], 0
    for rel in listed:
        path = os.path.realpath(os.path.join(src, rel))
        if not os.path.exists(path):
            problems.append(f"{rel}: listed in signal_safe.txt but not in the tree")
            continue
        if rel.endswith(".h"):
            continue  # checked through the sources that include it (below)
        entry = commands.get(path)
        if entry is None:
            problems.append(f"{rel}: not compiled into the runtime (compile_commands.json)")
            continue
        args = shlex.split(entry["command"])
        cmd, skip = [], False
        for a in args:
            if skip:
                skip = False
                continue
            if a == "-o":
                skip = True
                continue
            cmd.append(a)
        r = subprocess.run(cmd + ["-fsyntax-only", "-H"], cwd=entry["directory"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            problems.append(f"{rel}: does not compile: {r.stderr.strip()[:300]}")
            continue
        checked += 1
        stack = [path]
        for line in r.stderr.splitlines():
            m = DEPTH.match(line)
            if not m:
                continue
            depth, header = len(m.group(1)), os.path.realpath(m.group(2))
            del stack[depth:]
            parent = stack[-1]
            stack.append(header)
            if library_header(header) and not library_header(parent) and parent.startswith(src):
                name = os.path.basename(header)
                # libstdc++'s own copies of the C headers (stdlib.h, math.h) are C headers.
                if "/bits/" not in header and not name.endswith(".h") and name not in FREESTANDING:
                    problems.append(f"{rel}: <{name}> named by {os.path.relpath(parent, src)}")
    return sorted(set(problems)), checked


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    src, build = os.path.realpath(sys.argv[1]), sys.argv[2]
    problems, checked = check(src, build)
    for p in problems:
        print("FAIL:", p, file=sys.stderr)
    print(f"check_signal_safe: {checked} signal-safe sources preprocessed, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
