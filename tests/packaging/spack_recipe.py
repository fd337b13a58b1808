#!/usr/bin/env python3
"""Checks the Spack recipe (packaging/spack/packages/hpcrun-lite/package.py), issue 39.

  spack_recipe.py [--recipe PATH] [--install-deps PATH] [--source-dir DIR]

(a) The recipe compiles (py_compile), and imports with a stand-in for Spack's `spack.package`
    (written into a temporary directory, never into the tree) that records its directives.
(b) Its depends_on(...) calls, read with Python's ast, match scripts/install-deps.sh by the
    table SPACK_TO_DEBIAN below: every dependency has its Debian packages in install-deps.sh,
    and every package install-deps.sh lists is either a dependency of the recipe (directly, or
    through one: TRANSITIVE) or named in NOT_FOR_THE_BUILD with the reason. Build tools are
    type="build", the test libraries type="test", ncurses, papi and mpi conditional on their
    variants.
(c) The variants mpi, papi, viewer (default on) and sanitizers (default off) exist, and for every
    combination of them (and with Spack's tests on and off) cmake_args() and patch() do what the
    project's build understands: HPCL_SANITIZE, HPCL_BUILD_TESTS, HPCL_BUILD_BENCH (options of
    CMakeLists.txt), CMAKE_DISABLE_FIND_PACKAGE_MPI (CMake's switch over the project's
    find_package(MPI)), an empty PAPI_INCLUDE_DIR (the project's find_path(PAPI_INCLUDE_DIR)), and
    ~viewer removing viewer-tui/CMakeLists.txt (which the top-level CMakeLists.txt adds only if
    it exists); every other -D it passes is an option or cache variable of the project.
Prints each mismatch as "FAIL: ..."; exit status 0 pass, 1 fail.
"""

import argparse
import ast
import importlib.util
import itertools
import os
import py_compile
import re
import shutil
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # importing the recipe leaves no __pycache__ in the tree

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.normpath(os.path.join(HERE, "..", ".."))

# Spack dependency -> the Debian packages of scripts/install-deps.sh that stand for it (all of
# them must be listed there).
SPACK_TO_DEBIAN = {
    "c": ["build-essential"],
    "cxx": ["build-essential"],
    "cmake": ["cmake"],
    "pkgconfig": ["pkg-config"],
    "zydis": ["libzydis-dev"],
    "elfutils": ["libdw-dev", "libelf-dev"],
    "libunwind": ["libunwind-dev"],
    "zstd": ["libzstd-dev", "zstd"],
    "boost": ["libboost-dev"],
    "libpfm4": ["libpfm4-dev"],
    "cli11": ["libcli11-dev"],
    "protobuf": ["libprotobuf-dev", "protobuf-compiler"],
    "ncurses": ["libncurses-dev"],
    "papi": ["libpapi-dev"],
    "mpi": ["libopenmpi-dev", "openmpi-bin"],
    "googletest": ["libgtest-dev", "libgmock-dev"],
    "nlohmann-json": ["nlohmann-json3-dev"],
    "python": ["python3", "python3-dev"],
}

# Debian packages the build needs only as a dependency of another one: covered when the recipe
# depends on that one.
TRANSITIVE = {
    "zlib1g-dev": ("protobuf", "protobuf's gzip stream (report --format pprof); the project "
                   "includes no zlib header, Spack's protobuf depends on zlib-api"),
}

# Debian packages install-deps.sh lists that are not for building the package: test programs,
# benchmarks, fuzzing and the applications of the end-to-end tests.
NOT_FOR_THE_BUILD = {
    "libjemalloc-dev": "an allocator the e2e.alloc_* test programs link",
    "libgoogle-perftools-dev": "an allocator the e2e.alloc_* test programs link (tcmalloc)",
    "libmimalloc-dev": "an allocator the e2e.alloc_* test programs link",
    "libtbb-dev": "an allocator the e2e.alloc_* test programs link (TBB's)",
    "libbenchmark-dev": "micro-benchmarks: HPCL_BUILD_BENCH, off in the recipe",
    "chromium": "e2e.report_html renders the HTML export",
    "tmux": "e2e viewer test in a real terminal",
    "strace": "e2e.timer_signal's tracer",
    "golang-go": "e2e.report_pprof reads the export back with go tool pprof",
    "python3-mpi4py": "e2e.mpi_python's program",
    "python3-numpy": "e2e.python_arrays's program",
    "python3-pandas": "e2e.report_hatchet reads the Hatchet export with pandas",
    "gpaw": "e2e.python_gpaw's application",
    "clang": "the libFuzzer targets (scripts/fuzz.sh)",
    "ninja-build": "the fuzz build (scripts/fuzz.sh)",
    "heaptrack": "a benchmark peer",
    "lammps": "e2e.mpi_lammps's application",
    "libeigen3-dev": "e2e.cxx_fields's test program",
    "openfoam": "e2e.mpi_openfoam's application",
    "openfoam-examples": "e2e.mpi_openfoam's tutorial case",
    "slurm-wlm": "e2e.slurm's one-node cluster (srun, sbatch)",
    "munge": "e2e.slurm's cluster authentication",
    "libpmix-dev": "e2e.slurm: srun --mpi=pmix loads libpmix.so",
    "file": "packaging.deb_install: dpkg-shlibdeps reads the binaries' types with it",
    "lua5.4": "packaging.modulefile parses the Lmod modulefile (luac5.4)",
    "lmod": "packaging.modulefile loads the modulefile",
    "man-db": "docs.man_pages and e2e.install_prefix render the manual pages",
}

BUILD_ONLY = {"c", "cxx", "cmake", "pkgconfig"}
TEST_ONLY = {"googletest", "nlohmann-json", "python"}
CONDITIONAL = {"ncurses": "+viewer", "papi": "+papi", "mpi": "+mpi"}
VARIANTS = {"mpi": True, "papi": True, "viewer": True, "sanitizers": False}

# The stand-in for Spack's package API: the directives record themselves, CMakePackage.define
# writes -D arguments as Spack does.
STUB = r'''
import os
RECORDED = []

def _directive(kind):
    def record(*args, **kwargs):
        RECORDED.append((kind, args, kwargs))
    return record

for _kind in ("version", "variant", "depends_on", "conflicts", "requires", "provides",
              "maintainers", "license", "patch", "resource", "build_system", "extends"):
    globals()[_kind] = _directive(_kind)

class SkipTest(Exception):
    pass

def which(*names, path=None, required=False):
    raise RuntimeError("which() is not available in the stand-in")

def Executable(name):
    raise RuntimeError("Executable() is not available in the stand-in")

def join_path(*parts):
    return os.path.join(*parts)

def filter_file(*args, **kwargs):
    raise RuntimeError("filter_file() is not available in the stand-in")

class Variant:
    def __init__(self, value):
        self.value = value

class Spec:
    """Only what the recipe asks: satisfies("+v"), satisfies("~v"), satisfies("@main"),
    variants[...].value, version."""
    def __init__(self, variants, version):
        self.variants = {k: Variant(v) for k, v in variants.items()}
        self.version = version
    def satisfies(self, text):
        text = text.strip()
        if text.startswith("+") or text.startswith("~"):
            name = text[1:]
            if name not in self.variants:
                raise KeyError(f"satisfies({text!r}): no variant {name!r}")
            return self.variants[name].value == text.startswith("+")
        if text.startswith("@"):
            return text[1:] == str(self.version)
        raise ValueError(f"the stand-in cannot evaluate satisfies({text!r})")

class Stage:
    def __init__(self, path):
        self.source_path = path

class CMakePackage:
    def __init__(self, spec, run_tests, source_path):
        self.spec = spec
        self.run_tests = run_tests
        self.stage = Stage(source_path)
    @staticmethod
    def define(name, value):
        if isinstance(value, bool):
            return f"-D{name}:BOOL={'ON' if value else 'OFF'}"
        if isinstance(value, (list, tuple)):
            return f"-D{name}:STRING={';'.join(str(v) for v in value)}"
        return f"-D{name}:STRING={value}"
    def define_from_variant(self, name, variant):
        return self.define(name, self.spec.variants[variant].value)
'''


class Failures:
    def __init__(self):
        self.messages = []

    def __call__(self, message):
        self.messages.append(message)
        print(f"FAIL: {message}")


def install_deps_packages(path):
    """The words of the PACKAGES=( ... ) array of install-deps.sh, comments left out."""
    text = open(path, encoding="utf-8").read()
    m = re.search(r"^PACKAGES=\((.*?)^\)", text, re.MULTILINE | re.DOTALL)
    if not m:
        raise SystemExit(f"FAIL: no PACKAGES=( ... ) array in {path}")
    words = []
    for line in m.group(1).splitlines():
        words.extend(line.split("#", 1)[0].split())
    return words


def literal(node):
    try:
        return ast.literal_eval(node)
    except ValueError:
        return None


def depends_on_calls(tree, fail):
    """(name, spec text, type tuple, when) of every depends_on call."""
    deps = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "depends_on":
            spec = literal(node.args[0]) if node.args else None
            if not isinstance(spec, str):
                fail(f"line {node.lineno}: depends_on with a spec that is not a string literal")
                continue
            kwargs = {k.arg: literal(k.value) for k in node.keywords}
            dtype = kwargs.get("type", ("build", "link"))
            if isinstance(dtype, str):
                dtype = (dtype,)
            name = re.match(r"[A-Za-z0-9_.-]+", spec).group(0)
            deps.append((name, spec, tuple(dtype), kwargs.get("when"), node.lineno))
    return deps


def check_dependencies(deps, packages, fail):
    listed = set(packages)
    names = {d[0] for d in deps}
    covered = set()
    for name, spec, dtype, when, line in deps:
        debs = SPACK_TO_DEBIAN.get(name)
        if debs is None:
            fail(f"depends_on({spec!r}) (line {line}) has no Debian package in this test's table "
                 "SPACK_TO_DEBIAN: add the install-deps.sh package it stands for")
            continue
        for deb in debs:
            if deb not in listed:
                fail(f"depends_on({spec!r}) (line {line}) stands for the Debian package {deb}, "
                     "which scripts/install-deps.sh does not list")
        covered.update(debs)
        if name in BUILD_ONLY and dtype != ("build",):
            fail(f"depends_on({spec!r}): a build tool, type should be \"build\", not {dtype}")
        if name in TEST_ONLY and set(dtype) != {"test"}:
            fail(f"depends_on({spec!r}): only the project's tests need it, type should be "
                 f"\"test\", not {dtype}")
        if name in CONDITIONAL and (not when or CONDITIONAL[name] not in when):
            fail(f"depends_on({spec!r}) should be when=\"{CONDITIONAL[name]}\" (it is when={when!r})")
    for deb in packages:
        if deb in covered or deb in NOT_FOR_THE_BUILD:
            continue
        if deb in TRANSITIVE:
            if TRANSITIVE[deb][0] not in names:
                fail(f"install-deps.sh lists {deb}, covered through depends_on(\"{TRANSITIVE[deb][0]}\"), "
                     "which the recipe lacks")
            continue
        rev = [s for s, d in SPACK_TO_DEBIAN.items() if deb in d]
        if rev:
            fail(f"install-deps.sh lists {deb} (for the build) but the recipe has no "
                 f"depends_on({rev[0]!r})")
        else:
            fail(f"install-deps.sh lists {deb}, which this test neither maps to a Spack dependency "
                 "(SPACK_TO_DEBIAN, TRANSITIVE) nor excludes (NOT_FOR_THE_BUILD, with the reason)")
    for deb in NOT_FOR_THE_BUILD:
        if deb in covered:
            fail(f"{deb} is both a dependency of the recipe and in NOT_FOR_THE_BUILD")


def cmake_names(source):
    """Options and cache variables the project declares, and the sources of the CMake files."""
    texts = {}
    for root, dirs, files in os.walk(source):
        dirs[:] = [d for d in dirs if not d.startswith(("build", ".git", "demo-runs"))]
        for f in files:
            if f == "CMakeLists.txt" or f.endswith(".cmake"):
                p = os.path.join(root, f)
                texts[os.path.relpath(p, source)] = open(p, encoding="utf-8", errors="replace").read()
    declared = set()
    for text in texts.values():
        declared.update(re.findall(r"^\s*option\(\s*(\w+)", text, re.MULTILINE))
        declared.update(re.findall(r"^\s*set\(\s*(\w+)\s+[^)]*\bCACHE\b", text, re.MULTILINE))
    return declared, texts


def import_recipe(recipe, workdir):
    stub_root = os.path.join(workdir, "stub")
    os.makedirs(os.path.join(stub_root, "spack"))
    open(os.path.join(stub_root, "spack", "__init__.py"), "w").close()
    with open(os.path.join(stub_root, "spack", "package.py"), "w") as f:
        f.write(STUB)
    sys.path.insert(0, stub_root)
    import spack.package as stub  # noqa: E402  (the stand-in)
    spec = importlib.util.spec_from_file_location("hpcl_recipe", recipe)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return stub, module


def check_variants_and_args(stub, module, source, workdir, fail):
    cls = getattr(module, "HpcrunLite", None)
    if cls is None or not issubclass(cls, stub.CMakePackage):
        fail("the recipe defines no class HpcrunLite(CMakePackage)")
        return
    variants = {a[0]: k.get("default") for kind, a, k in stub.RECORDED if kind == "variant"}
    for name, default in VARIANTS.items():
        if name not in variants:
            fail(f"no variant {name!r}")
        elif variants[name] is not default:
            fail(f"variant {name!r} defaults to {variants[name]!r}, expected {default!r}")
    versions = [a[0] for kind, a, k in stub.RECORDED if kind == "version"]
    for v in ("main", "0.1.0"):
        if v not in versions:
            fail(f"no version({v!r}, ...)")
    conflicts = [a[0] for kind, a, k in stub.RECORDED if kind == "conflicts"]
    if not any(c.startswith("platform=darwin") for c in conflicts):
        fail("no conflicts(\"platform=darwin\") (Linux only)")
    if not any(c.startswith("target=aarch64") for c in conflicts):
        fail("no conflicts(\"target=aarch64:\") (x86_64 only)")
    if not any(n.startswith("test_") for n in vars(cls)):
        fail("no stand-in test method (test_*) in the recipe")

    declared, texts = cmake_names(source)
    top = texts.get("CMakeLists.txt", "")
    deps_cmake = texts.get(os.path.join("cmake", "Dependencies.cmake"), "")
    if "find_package(MPI" not in deps_cmake:
        fail("cmake/Dependencies.cmake has no find_package(MPI: CMAKE_DISABLE_FIND_PACKAGE_MPI would do nothing")
    if not re.search(r"find_path\(\s*PAPI_INCLUDE_DIR\b", deps_cmake):
        fail("cmake/Dependencies.cmake has no find_path(PAPI_INCLUDE_DIR: the recipe's ~papi would do nothing")
    if "viewer-tui/CMakeLists.txt" not in top:
        fail("CMakeLists.txt does not add viewer-tui/ only where its CMakeLists.txt exists: ~viewer's patch would break the build")
    handled = {"CMAKE_DISABLE_FIND_PACKAGE_MPI", "PAPI_INCLUDE_DIR", "HPCL_COMMIT"}
    for name in ("HPCL_SANITIZE", "HPCL_BUILD_TESTS", "HPCL_BUILD_BENCH"):
        if name not in declared:
            fail(f"{name} is not an option of the project any more")

    source_copy = os.path.join(workdir, "src")
    grouped = {}  # a failure of some combinations -> their labels, reported once

    def combo_fail(label, message):
        grouped.setdefault(message, []).append(label)

    for values in itertools.product((True, False), repeat=len(VARIANTS)):
        v = dict(zip(VARIANTS, values))
        for run_tests in (False, True):
            label = " ".join(("+" if on else "~") + n for n, on in v.items()) + (" (tests)" if run_tests else "")
            shutil.rmtree(source_copy, ignore_errors=True)
            os.makedirs(os.path.join(source_copy, "viewer-tui"))
            open(os.path.join(source_copy, "viewer-tui", "CMakeLists.txt"), "w").close()
            pkg = cls(stub.Spec(v, "0.1.0"), run_tests, source_copy)
            cwd = os.getcwd()
            os.chdir(source_copy)
            try:
                if hasattr(pkg, "patch"):
                    pkg.patch()
                args = pkg.cmake_args()
            except Exception as e:  # the recipe asked the stand-in for what it cannot answer
                combo_fail(label, f"cmake_args()/patch() raised {type(e).__name__}: {e}")
                continue
            finally:
                os.chdir(cwd)
            defs = {}
            for a in args:
                m = re.match(r"-D([A-Za-z0-9_]+)(?::[A-Z]+)?=(.*)$", a)
                if not m:
                    combo_fail(label, f"cmake_args() gives {a!r}, not a -DNAME=VALUE")
                    continue
                defs[m.group(1)] = m.group(2)
            for name in defs:
                if name not in declared and name not in handled:
                    combo_fail(label, f"cmake_args() sets {name}, which no CMake file of the project declares")
            want = {
                "HPCL_SANITIZE": "ON" if v["sanitizers"] else "OFF",
                "HPCL_BUILD_TESTS": "ON" if run_tests else "OFF",
                "HPCL_BUILD_BENCH": "OFF",
            }
            for name, value in want.items():
                if defs.get(name) != value:
                    combo_fail(label, f"{name} is {defs.get(name)!r}, expected {value}")
            mpi_off = defs.get("CMAKE_DISABLE_FIND_PACKAGE_MPI") == "ON"
            if mpi_off == v["mpi"]:
                combo_fail(label, f"CMAKE_DISABLE_FIND_PACKAGE_MPI is {defs.get('CMAKE_DISABLE_FIND_PACKAGE_MPI')!r}")
            papi_off = defs.get("PAPI_INCLUDE_DIR", None) == ""
            if papi_off == v["papi"]:
                combo_fail(label, f"PAPI_INCLUDE_DIR is {defs.get('PAPI_INCLUDE_DIR')!r} "
                     "(empty exactly when ~papi)")
            viewer_kept = os.path.exists(os.path.join(source_copy, "viewer-tui", "CMakeLists.txt"))
            if viewer_kept != v["viewer"]:
                combo_fail(label, f"patch() {'kept' if viewer_kept else 'removed'} viewer-tui/CMakeLists.txt")

    total = 2 ** (len(VARIANTS) + 1)
    for message, labels in grouped.items():
        where = "in all combinations" if len(labels) == total else \
            f"in {len(labels)} of {total} combinations, e.g. {labels[0]}"
        fail(f"{message} ({where})")

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--recipe", default=os.path.join(SOURCE, "packaging", "spack", "packages", "hpcrun-lite", "package.py"))
    ap.add_argument("--install-deps", default=os.path.join(SOURCE, "scripts", "install-deps.sh"))
    ap.add_argument("--source-dir", default=SOURCE)
    opts = ap.parse_args()
    start = time.monotonic()
    fail = Failures()
    workdir = tempfile.mkdtemp(prefix="hpcl-spack-recipe.")
    try:
        # (a)
        try:
            py_compile.compile(opts.recipe, cfile=os.path.join(workdir, "recipe.pyc"), doraise=True)
        except py_compile.PyCompileError as e:
            fail(f"the recipe does not compile: {e.msg}")
            return 1
        print(f"(a) py_compile {opts.recipe}: ok")
        try:
            stub, module = import_recipe(opts.recipe, workdir)
        except Exception as e:
            fail(f"the recipe does not import with the spack.package stand-in: {type(e).__name__}: {e}")
            return 1
        # (b)
        tree = ast.parse(open(opts.recipe, encoding="utf-8").read(), opts.recipe)
        deps = depends_on_calls(tree, fail)
        packages = install_deps_packages(opts.install_deps)
        before = len(fail.messages)
        check_dependencies(deps, packages, fail)
        if len(fail.messages) == before:
            print(f"(b) {len(deps)} depends_on calls match the {len(packages)} packages of install-deps.sh "
                  f"({len(NOT_FOR_THE_BUILD)} of them not for the build)")
        # (c)
        before = len(fail.messages)
        check_variants_and_args(stub, module, opts.source_dir, workdir, fail)
        if len(fail.messages) == before:
            print("(c) variants mpi, papi, viewer, sanitizers: cmake_args() and patch() agree with the "
                  "project's CMake files in all 32 combinations")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    took = time.monotonic() - start
    if fail.messages:
        print(f"{len(fail.messages)} failure(s) ({took:.1f} s)")
        return 1
    print(f"PASS: the Spack recipe compiles, its dependencies match install-deps.sh, its variants "
          f"map to the project's CMake options ({took:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
