# Spack recipe for hpcrun-lite (issue 39). It lives in a package repository of its own:
#   packaging/spack/repo.yaml          (repo: namespace: hpcrun_lite)
#   packaging/spack/packages/hpcrun-lite/package.py
# `spack repo add packaging/spack`, then `spack install hpcrun-lite@main` and
# `spack test run hpcrun-lite` (test_version, test_measure below).
# tests/packaging/spack_recipe.py checks this file against scripts/install-deps.sh and the CMake
# options of the project.
import os
import re

from spack.package import *

try:  # Spack 1.0 and later: the build systems live in the builtin package repository
    from spack_repo.builtin.build_systems.cmake import CMakePackage
except ImportError:  # Spack 0.x: spack.package exports CMakePackage
    pass

class HpcrunLite(CMakePackage):
    """A data-centric memory profiler for MPI+OpenMP programs on Linux/x86-64: it tells which
    variables (heap allocations named by their allocation path, static arrays, the stack) the
    program's memory accesses go to, and from which code, on unmodified binaries. hpcrun-lite
    measures (hardware address sampling where the machine has it, software sampling elsewhere),
    hpcprof-lite and hpcprof-lite-mpi merge and report, hpcviewer-tui browses the result."""

    # PLACEHOLDERS: the project has no public home page or repository yet. Replace these three
    # URLs (and the 0.1.0 tag below) when it has.
    homepage = "https://example.invalid/hpcrun-lite"  # PLACEHOLDER
    git = "https://example.invalid/hpcrun-lite.git"  # PLACEHOLDER
    url = "https://example.invalid/hpcrun-lite/archive/refs/tags/v0.1.0.tar.gz"  # PLACEHOLDER

    version("main", branch="main")
    # PLACEHOLDER: the release is fetched by its git tag. With a release tarball instead, use
    # version("0.1.0", sha256="<sha256 of hpcrun-lite-0.1.0.tar.gz>").
    version("0.1.0", tag="v0.1.0")

    variant("mpi", default=True,
            description="hpcprof-lite-mpi (the MPI-parallel merge) and the bundled MPI example")
    variant("papi", default=True,
            description="PAPI counters beside the address samples (-e PAPI_NAME) and PAPI's "
            "components in --check: papi.h at build time, libpapi opened at run time")
    variant("viewer", default=True, description="hpcviewer-tui, the terminal viewer (ncursesw)")
    variant("sanitizers", default=False,
            description="ASan/UBSan in the analyzer and the format tests (HPCL_SANITIZE); "
            "never in the preloaded runtime")

    # Linux/x86-64 only: the runtime preloads into Linux processes (perf_event_open, /proc,
    # glibc's dynamic loader) and decodes x86 instructions (Zydis) to find sampled addresses.
    conflicts("platform=darwin", msg="hpcrun-lite runs on Linux only")
    conflicts("platform=windows", msg="hpcrun-lite runs on Linux only")
    conflicts("platform=freebsd", msg="hpcrun-lite runs on Linux only")
    for _family in ("aarch64", "ppc64le", "ppc64", "riscv64", "arm"):
        conflicts(f"target={_family}:", msg="hpcrun-lite decodes x86-64 instructions: x86_64 only")

    depends_on("c", type="build")
    depends_on("cxx", type="build")  # C++20 (GCC 12 is what the project tests with)
    depends_on("cmake@3.20:", type="build")
    depends_on("pkgconfig", type="build")  # libdw, libelf, ncursesw are found by pkg-config

    # find_package(zydis CONFIG): the x86 decoder of the software address sampler.
    depends_on("zydis@4:")
    # libdw (symbolization) and libelf (symbol tables), by pkg-config.
    depends_on("elfutils")
    # The runtime opens libunwind.so.8 with dlopen (no header, no link): it must be on the run
    # path Spack gives the libraries of link dependencies, hence "link".
    depends_on("libunwind", type=("link", "run"))
    # find_package(zstd CONFIG): only zstd's CMake build installs zstdConfig.cmake.
    depends_on("zstd build_system=cmake")
    # Boost.Container flat maps, header only (find_package(Boost CONFIG COMPONENTS headers)).
    depends_on("boost@1.74:")
    # Linked by the core library; the launcher and the runtime also dlopen libpfm.so.4.
    depends_on("libpfm4")
    depends_on("cli11")  # header only
    # report --format pprof. CMake's FindProtobuf module does not link abseil, which protobuf
    # 3.22 and later need: 3.21 is what Debian 12 has and the project is tested with.
    depends_on("protobuf@3.12:3.21")
    depends_on("ncurses", when="+viewer")  # ncursesw, by pkg-config
    # papi.h only at build time; libpapi is opened with dlopen when PAPI events are asked for,
    # so it must be on the run path too ("link" gives it one, the binaries do not link it).
    depends_on("papi", when="+papi", type=("build", "link", "run"))
    depends_on("mpi", when="+mpi")
    # OpenMP comes with the compiler (libgomp with GCC).

    # Only for the project's own tests (HPCL_BUILD_TESTS, when Spack runs them).
    depends_on("googletest", type="test")
    depends_on("nlohmann-json", type="test")
    depends_on("python@3.8:", type="test")  # the e2e checkers; the unit tests embed CPython

    def patch(self):
        # The viewer is built wherever ncursesw and CLI11 are found, and the top-level
        # CMakeLists.txt adds viewer-tui/ only where its CMakeLists.txt exists: ~viewer takes it
        # out (until the project has an option for it).
        if self.spec.satisfies("~viewer") and os.path.exists("viewer-tui/CMakeLists.txt"):
            os.remove("viewer-tui/CMakeLists.txt")

    def cmake_args(self):
        args = [
            self.define_from_variant("HPCL_SANITIZE", "sanitizers"),
            self.define("HPCL_BUILD_TESTS", self.run_tests),
            self.define("HPCL_BUILD_BENCH", False),
            self.define("HPCL_WERROR", False),
            # ~mpi: CMake's own switch turns every find_package(MPI) of the project off.
            self.define("CMAKE_DISABLE_FIND_PACKAGE_MPI", self.spec.satisfies("~mpi")),
        ]
        if self.spec.satisfies("~papi"):
            # papi.h is looked for with find_path(PAPI_INCLUDE_DIR ...), on the system's paths
            # too: an empty value skips the search, and the build has no PAPI.
            args.append(self.define("PAPI_INCLUDE_DIR", ""))
        if not os.path.isdir(os.path.join(self.stage.source_path, ".git")):
            # --version prints the commit from `git describe`; a tarball has none.
            args.append(self.define("HPCL_COMMIT", f"v{self.spec.version}"))
        return args

    # Stand-alone tests: `spack test run hpcrun-lite`.

    def _c_compiler(self):
        """The C compiler the package was built with, else cc or gcc from PATH."""
        try:  # Spack 1.0 and later: the compiler is the provider of the "c" dependency
            return self.spec["c"].package.cc
        except Exception:
            pass
        try:  # Spack 0.x
            return self.compiler.cc
        except Exception:
            pass
        return which("cc", "gcc", required=True).path

    def test_version(self):
        """each installed command prints its name and version"""
        for name in ("hpcrun-lite", "hpcprof-lite"):
            exe = which(name, path=self.prefix.bin, required=True)
            out = exe("--version", output=str.split, error=str.split)
            assert out.startswith(name + " "), f"{name} --version printed {out!r}"
            if not self.spec.satisfies("@main"):
                assert f" {self.spec.version} " in out, f"{name} --version printed {out!r}"

    def test_measure(self):
        """hpcrun-lite measures the installed example (a pool carved into three named arrays);
        each array is a row of hpcprof-lite's report"""
        example = join_path(self.prefix.share.doc, "hpcrun-lite", "examples", "named_pool.c")
        cc = Executable(self._c_compiler())
        cc("-O2", "-g", "-I", self.prefix.include, "-o", "named_pool", example)

        hpcrun = which("hpcrun-lite", path=self.prefix.bin, required=True)
        out = hpcrun("-o", "meas", "--", "./named_pool", output=str.split, error=str.split)
        assert "named_pool: " in out, f"the program's output under hpcrun-lite: {out!r}"
        profiles = [f for f in os.listdir("meas") if f.endswith(".hpcl")]
        assert len(profiles) == 1, f"expected one profile in meas/, found {profiles}"

        hpcprof = which("hpcprof-lite", path=self.prefix.bin, required=True)
        hpcprof("merge", "meas", "-o", "db", output=str.split, error=str.split)
        report = hpcprof("report", "db", output=str, error=str.split)
        for name in ("pressure", "velocity", "density"):
            row = re.search(r"^\s*\d+\s+" + name + r"\s+heap\s", report, re.MULTILINE)
            assert row, f"no row for the named array {name} in the report:\n{report}"
