#!/usr/bin/env python3
"""Which tests cover which source file: a ratchet for tests that mirror the code (issue 37).

  check_test_map.py SOURCE_DIR BUILD_DIR [--ctest CTEST]

Every .cpp of the project outside tests/, bench/ and examples/ (and outside build trees: any
folder holding a CMakeCache.txt, and hidden folders) has a unit test of its own name,
tests/unit/**/<stem>_test.cpp, or a line in tests/house/test_map.txt naming the tests that
exercise it:

  PATH  TEST[, TEST...]  # why, in a few words

A TEST is one of:

  tests/unit/.../NAME_test.cpp  a unit test file that drives the file's code under another name;
                                it must exist and be named in a CMakeLists.txt under tests/ (built)
  e2e.NAME                      an end-to-end test that tests/e2e/CMakeLists.txt defines
  GROUP.NAME                    another add_test() name of a CMakeLists.txt under tests/
                                (analyzer.cli.errors, docs.man_pages, fuzz.readers_short, ...);
                                GoogleTest cases are named by their file instead
  NONE                          no test reaches the file (alone on its line): counted and listed
                                in the summary, not a failure, so that the gap stays visible

The ctest names are the configured build tree's, as ctest lists them (`ctest --test-dir
BUILD_DIR --show-only=json-v1`; the ctest of CTEST, default the one on PATH): a name the build
does not define fails, whichever condition left it out.

It fails (a line per problem, naming the file) when a .cpp has neither its own unit test nor a map
line; when a map line names a file that is gone, that is no .cpp of the project, or that now has a
unit test of its own name (the list may only shrink); when a line is malformed or repeated; when a
named unit test file is missing or not built; when a named ctest name is not defined. Python
standard library only. Exit status: 0 pass, 1 fail, 2 usage.
"""

import json
import os
import re
import subprocess
import sys

MAP = "tests/house/test_map.txt"
EXCLUDED_TOPS = ("tests", "bench", "examples")


# ---- the project's source files and unit tests ----------------------------------------------

def is_build_tree(path):
    return os.path.isfile(os.path.join(path, "CMakeCache.txt"))


def project_sources(src):
    """Repository-relative paths of every .cpp outside tests/, bench/, examples/ and build trees."""
    out = []
    for dirpath, dirs, files in os.walk(src):
        rel_dir = os.path.relpath(dirpath, src)
        keep = []
        for d in dirs:
            if d.startswith(".") or d == "CMakeFiles" or is_build_tree(os.path.join(dirpath, d)):
                continue
            if rel_dir == "." and d in EXCLUDED_TOPS:
                continue
            keep.append(d)
        dirs[:] = sorted(keep)
        for f in files:
            if f.endswith(".cpp"):
                out.append(os.path.normpath(os.path.join(rel_dir, f)))
    return sorted(out)


def unit_tests(src):
    """{stem of the tested file: [paths of tests/unit/**/<stem>_test.cpp]}."""
    by_stem = {}
    for dirpath, dirs, files in os.walk(os.path.join(src, "tests", "unit")):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for f in files:
            if f.endswith("_test.cpp"):
                rel = os.path.relpath(os.path.join(dirpath, f), src)
                by_stem.setdefault(f[:-len("_test.cpp")], []).append(rel)
    return by_stem


def test_cmakelists(src):
    out = []
    for dirpath, dirs, files in os.walk(os.path.join(src, "tests")):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        if "CMakeLists.txt" in files:
            out.append(os.path.relpath(os.path.join(dirpath, "CMakeLists.txt"), src))
    return sorted(out)


# ---- the tests ctest knows ----------------------------------------------------------------

def ctest_names(build, ctest):
    """({test name: [the files of its command that lie under the source tree]}, [problems]), as
    the configured build tree's ctest lists them (--show-only=json-v1)."""
    try:
        out = subprocess.run([ctest, "--test-dir", build, "--show-only=json-v1"], check=True,
                             capture_output=True, text=True).stdout
        tests = json.loads(out)["tests"]
    except (OSError, subprocess.CalledProcessError, ValueError, KeyError) as e:
        return {}, [f"cannot list the tests of {build} with {ctest}: {e}"]
    return {t["name"]: t.get("command", []) for t in tests}, []


# ---- the map --------------------------------------------------------------------------------

def read_map(src):
    """[(line number, path, [tests], raw line)] and the malformed lines' problems."""
    entries, problems = [], []
    path = os.path.join(src, MAP)
    if not os.path.isfile(path):
        return None, [f"{MAP}: missing"]
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            text = raw.rstrip("\n")
            body = re.split(r"\s#", text, maxsplit=1)[0].strip() if not text.lstrip().startswith("#") else ""
            if not body:
                continue
            parts = body.split(None, 1)
            if len(parts) < 2 or not re.search(r"\s#\s*\S", text):
                problems.append(f"{MAP}:{number}: want `PATH  TEST[, TEST...]  # why`: {text}")
                if len(parts) < 2:
                    continue
            tests = [t.strip() for t in parts[1].split(",")]
            if any(not t or re.search(r"\s", t) for t in tests):
                problems.append(f"{MAP}:{number}: tests are separated by commas: {text}")
                continue
            entries.append((number, parts[0], tests, text))
    return entries, problems


def built_test_files(src):
    """The text of every CMakeLists.txt under tests/, to see that a unit test file is built."""
    texts = []
    for rel in test_cmakelists(src):
        with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as f:
            texts.append(f.read())
    return "\n".join(texts)


def main():
    args = sys.argv[1:]
    ctest = "ctest"
    if len(args) == 4 and args[2] == "--ctest":
        ctest = args[3]
        args = args[:2]
    if len(args) != 2 or any(a.startswith("-") or not os.path.isdir(a) for a in args):
        print(__doc__, file=sys.stderr)
        return 2
    src, build = args
    sources = project_sources(src)
    source_set = set(sources)
    by_stem = unit_tests(src)
    own = {s for s in sources if os.path.splitext(os.path.basename(s))[0] in by_stem}

    entries, fails = read_map(src)
    if entries is None:
        for p in fails:
            print("FAIL:", p, file=sys.stderr)
        return 1
    names, cmake_problems = ctest_names(build, ctest)
    cmake_text = built_test_files(src)

    mapped, none, to_unit, to_ctest = {}, [], 0, 0
    for number, path, tests, _text in entries:
        where = f"{MAP}:{number}: {path}"
        repeated = path in mapped
        if repeated:
            fails.append(f"{where}: listed twice (also line {mapped[path]})")
        else:
            mapped[path] = number
        if path not in source_set:
            why = ("no such file" if not os.path.exists(os.path.join(src, path))
                   else "not a .cpp of the project (tests/, bench/, examples/ and build trees are not)")
            fails.append(f"{where}: {why}; remove the line")
        elif path in own:
            stem = os.path.splitext(os.path.basename(path))[0]
            fails.append(f"{where}: has its own unit test now ({', '.join(by_stem[stem])}); remove the line")
        if tests == ["NONE"]:
            if not repeated:
                none.append(path)
            continue
        kinds = set()
        for t in tests:
            if t == "NONE":
                fails.append(f"{where}: NONE goes alone on its line")
            elif "/" in t or t.endswith(".cpp"):
                kinds.add("unit")
                if not (t.startswith("tests/unit/") and t.endswith("_test.cpp")):
                    fails.append(f"{where}: {t} is not a unit test file (tests/unit/**/NAME_test.cpp)")
                elif not os.path.isfile(os.path.join(src, t)):
                    fails.append(f"{where}: {t}: no such unit test file")
                elif not re.search(r"(^|[\s/}])" + re.escape(os.path.basename(t)) + r"($|[\s)])",
                                   cmake_text, re.M):
                    fails.append(f"{where}: {t} is named in no CMakeLists.txt under tests/ (never built)")
            else:
                kinds.add("ctest")
                if t not in names:
                    fails.append(f"{where}: {t} is not a test of the build tree (ctest -N)")
        if not repeated:
            to_unit += kinds == {"unit"}
            to_ctest += kinds == {"ctest"}

    for s in sources:
        if s not in own and s not in mapped:
            stem = os.path.splitext(os.path.basename(s))[0]
            fails.append(f"{s}: no unit test tests/unit/**/{stem}_test.cpp and no line in {MAP}")
    fails = cmake_problems + fails

    both = len(mapped) - len(none) - to_unit - to_ctest
    print(f"check_test_map: {len(sources)} source files: {len(own)} with a unit test of their name, "
          f"{len(mapped)} mapped ({to_unit} to unit tests, {to_ctest} to ctest names, {both} to both; "
          f"{len(none)} with no test: NONE)")
    for path in none:
        print("  no test:", path)
    if fails:
        for line in fails:
            print("FAIL:", line, file=sys.stderr)
        print(f"check_test_map: {len(fails)} problems (the rules are in this script's doc)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
