// Heap names past the runtime libraries, in the report model on a synthetic database (issue 21):
// a variable that libgfortran, libgomp, FFTW or MPI allocated for the program is named by the
// program's frame that asked, after the library call; one made wholly inside such a library goes
// to its group row; a mapped file, a shared-memory segment and a named range are named as the
// program knows them; a pmr buffer by its resource; Boost.Pool's frames are the allocator's; a
// frame known only by its address is never shown as a caller.
#include <algorithm>
#include <map>

#include <gtest/gtest.h>

#include "model/heap_naming.h"
#include "model/report_model.h"
#include "model/runtime_libs.h"
#include "profile_builder.h"

namespace hpcl::analysis {
namespace {

using namespace hpcl::testing;

enum : uint32_t { App = 0, Libc = 1, Gfortran = 2, Gomp = 3, Fftw = 4, Mpi = 5, Stdcxx = 6, Jemalloc = 7 };

Profile make_database() {
  Profile db;
  db.kind = FileKind::Database;
  db.set_meta("source", "soft");
  db.modules = {{"/opt/cp2k/bin/cp2k.psmp", "", 0},
                {"/lib/x86_64-linux-gnu/libc.so.6", "", 0},
                {"/lib/x86_64-linux-gnu/libgfortran.so.5", "", 0},
                {"/lib/x86_64-linux-gnu/libgomp.so.1", "", 0},
                {"/lib/x86_64-linux-gnu/libfftw3.so.3", "", 0},
                {"/lib/x86_64-linux-gnu/libmpi.so.40", "", 0},
                {"/lib/x86_64-linux-gnu/libstdc++.so.6", "", 0},
                {"/lib/x86_64-linux-gnu/libjemalloc.so.2", "", 0}};
  const Frame malloc_fr{Libc, 0x10}, trim{Gfortran, 0x20d00}, trim_inner{Gfortran, 0x20e00},
      gomp{Gomp, 0x1c000}, gomp_thread{Gomp, 0x1d000}, plan{Fftw, 0x500}, main_fr{App, 0x990},
      pmr{Stdcxx, 0x300}, je{Jemalloc, 0x37a10};
  db.sites = {
      {AllocApi::Malloc, 0, {malloc_fr, trim_inner, trim, {App, 0x100}, main_fr}, 1, 64},     // 0
      {AllocApi::Malloc, 0, {malloc_fr, trim_inner, trim, {App, 0x200}, main_fr}, 1, 64},     // 1
      {AllocApi::Malloc, 0, {malloc_fr, gomp, {App, 0x300}, main_fr}, 1, 4096},               // 2
      {AllocApi::Malloc, 0, {malloc_fr, gomp_thread}, 1, 4096},                               // 3
      {AllocApi::Malloc, 0, {malloc_fr, plan, {App, 0x400}, main_fr}, 1, 1 << 20},            // 4
      {AllocApi::MmapShm, 0, {{Mpi, 0x900}, {Mpi, 0x800}, {App, 0x500}, main_fr}, 1, 1 << 22,
       "/dev/shm/vader_segment.node.0"},                                                      // 5
      {AllocApi::MmapFile, 0, {{App, 0x600}, main_fr}, 1, 1 << 20, "/scratch/run/wfn.bin"},   // 6
      {AllocApi::MmapFile, 0, {{App, 0x600}, main_fr}, 1, 1 << 20, "/scratch/run/rho.bin"},   // 7
      {AllocApi::Named, 0, {{App, 0x700}, main_fr}, 1, 1 << 20, "alpha"},                     // 8
      {AllocApi::New, 0, {pmr, {App, 0x800}, main_fr}, 1, 1 << 20},                           // 9
      {AllocApi::Malloc, 0, {je, {App, 0xa00}, main_fr}, 1, 1 << 20},                         // 10
      {AllocApi::MmapShm, 0, {{Mpi, 0x900}, {Mpi, 0xb00}, {App, 0x500}, main_fr}, 1, 1 << 22,
       "/dev/shm/osc_sm_segment.node.0"},                                                     // 11
  };
  Tree t = new_tree(0);
  for (uint32_t s = 0; s < db.sites.size(); ++s) heap_sample(t, s, {{App, 0x980}}, 100 - s);
  // Untracked memory: what the program's kernel read, and what MPI's progress loop read while
  // the rank waited in MPI_Wait (frames outermost first).
  unknown_sample(t, UnknownClass::Other, {main_fr, {App, 0x980}}, 9);
  unknown_sample(t, UnknownClass::Other, {main_fr, {Mpi, 0xc00}, {Mpi, 0xd00}}, 40);
  unknown_sample(t, UnknownClass::UntrackedHeap, {main_fr, {Mpi, 0xc00}}, 5);
  db.trees = {t};
  std::map<Frame, std::vector<SourceLoc>> syms = {
      {malloc_fr, {{"malloc", "", 0}}},
      {trim, {{"_gfortran_string_trim", "", 0}}},
      {trim_inner, {{"libgfortran.so.5!0x20e00", "", 0}}},  // stripped: known by its bounds
      {gomp, {{"GOMP_parallel", "", 0}}},
      {gomp_thread, {{"libgomp.so.1!0x1d000", "", 0}}},
      {plan, {{"fftw_plan_dft_3d", "", 0}}},
      {{Mpi, 0x900}, {{"mca_btl_vader_component_init", "", 0}}},
      {{Mpi, 0x800}, {{"PMPI_Init", "", 0}}},
      {{Mpi, 0xb00}, {{"PMPI_Win_allocate_shared", "", 0}}},
      {{Mpi, 0xc00}, {{"PMPI_Wait", "", 0}}},
      {{Mpi, 0xd00}, {{"opal_progress", "", 0}}},
      {pmr, {{"std::pmr::monotonic_buffer_resource::_M_new_buffer(unsigned long, unsigned long)", "", 0}}},
      {je, {{"je_malloc_default", "", 0}}},
      {{App, 0x100}, {{"__qs_energy_MOD_qs_energies", "/src/qs_energy.F", 120}}},
      {{App, 0x200}, {{"__qs_energy_MOD_qs_energies", "/src/qs_energy.F", 140}}},
      {{App, 0x300}, {{"build_neighbours", "/src/nl.c", 30}}},
      {{App, 0x400}, {{"fft_setup", "/src/fft.c", 12}}},
      {{App, 0x500}, {{"main", "/src/main.c", 5}}},
      {{App, 0x600}, {{"read_restart", "/src/io.c", 40}}},
      {{App, 0x700}, {{"carve_pool", "/src/pool.c", 9}}},
      {{App, 0x800}, {{"build_tables()", "/src/pmr.cpp", 21}}},
      {{App, 0xa00}, {{"make_grid", "/src/grid.c", 4}}},
      {main_fr, {{"main", "/src/main.c", 3}}},
      {{App, 0x980}, {{"kernel", "/src/kernel.c", 7}}},
  };
  for (auto& [f, locs] : syms) db.symbols.push_back(Symbolized{f, locs});
  return db;
}

std::vector<std::string> heap_names(const ReportModel& m) {
  std::vector<std::string> names;
  for (const Variable& v : m.variables)
    if (v.kind == VariableKind::Heap) names.push_back(v.name);
  return names;
}

TEST(RuntimeNaming, VariablesAreNamedByTheProgramPastTheRuntimes) {
  ReportModel m = build_report_model(make_database());
  EXPECT_EQ(heap_names(m), (std::vector<std::string>{
                               "_gfortran_string_trim in qs_energy::qs_energies (qs_energy.F:120)",
                               "_gfortran_string_trim in qs_energy::qs_energies (qs_energy.F:140)",
                               "fftw_plan_dft_3d in fft_setup (fft.c:12)",
                               "/scratch/run/wfn.bin",
                               "/scratch/run/rho.bin",
                               "alpha",
                               "std::pmr::monotonic_buffer_resource in build_tables (pmr.cpp)",
                               "make_grid (grid.c:4)",
                               "/dev/shm/osc_sm_segment.node.0"}));
  // Made wholly inside libgomp (a thread's start, no program frame), and libgomp's own state
  // allocated inside the program's call: its group row, where --no-group names the call.
  const Variable* openmp_row = nullptr;
  for (const Variable& v : m.variables)
    if (v.name == "[OpenMP runtime data]") openmp_row = &v;
  ASSERT_NE(openmp_row, nullptr);
  EXPECT_EQ(openmp_row->allocations, 2u);
  ReportModelOptions ungrouped;
  ungrouped.group_runtime = false;
  std::vector<std::string> all = heap_names(build_report_model(make_database(), ungrouped));
  EXPECT_NE(std::find(all.begin(), all.end(), "GOMP_parallel in build_neighbours (nl.c:30)"), all.end());
  // MPI's own data is one row: the transport's segment made in MPI_Init (a window made later,
  // above, is the program's) and the untracked memory its code read, which --no-group lists.
  EXPECT_NE(std::find(all.begin(), all.end(), "/dev/shm/vader_segment.node.0"), all.end());
  const Variable* mpi_row = nullptr;
  std::vector<std::string> unknown;
  for (const Variable& v : m.variables) {
    if (v.name == "[MPI runtime data]") mpi_row = &v;
    if (v.kind == VariableKind::Unknown && v.samples > 0) unknown.push_back(v.name + " " + std::to_string(v.samples));
  }
  ASSERT_NE(mpi_row, nullptr);
  EXPECT_EQ(mpi_row->samples, 95u + 40u + 5u);  // the segment (site 5) and what MPI's code read
  std::vector<std::string> parts;
  for (const GroupPart& p : mpi_row->parts) parts.push_back(p.name);
  EXPECT_EQ(parts, (std::vector<std::string>{"/dev/shm/vader_segment.node.0", "[unknown data read by MPI]",
                                             "[untracked heap read by MPI]"}));
  EXPECT_EQ(unknown, (std::vector<std::string>{"[unknown data] 9"}));
  bool noted = false;
  for (const std::string& note : m.notes) noted |= note.starts_with("MPI: ");
  EXPECT_TRUE(noted);
  const ReportModel separate = build_report_model(make_database(), ungrouped);
  unknown.clear();
  for (const Variable& v : separate.variables)
    if (v.kind == VariableKind::Unknown && v.samples > 0) unknown.push_back(v.name + " " + std::to_string(v.samples));
  std::sort(unknown.begin(), unknown.end());
  EXPECT_EQ(unknown, (std::vector<std::string>{"[unknown data read by MPI] 40", "[unknown data] 9",
                                               "[untracked heap read by MPI] 5"}));
  for (const Variable& v : m.variables) {
    if (v.name == "alpha") {
      EXPECT_EQ(v.allocator, "named");
      EXPECT_EQ(v.allocation_site, "named in alpha");
      EXPECT_EQ(v.allocation_path.back().function, "main");
    }
    if (v.name == "/scratch/run/wfn.bin") {
      EXPECT_EQ(v.allocator, "mmap file");
    }
  }
}

TEST(RuntimeNaming, RuntimeFamilies) {
  EXPECT_EQ(runtime_family("/lib/x86_64-linux-gnu/libgfortran.so.5"), RuntimeFamily::Fortran);
  EXPECT_EQ(runtime_family("/usr/lib/libfftw3_omp.so.3"), RuntimeFamily::Numerics);
  EXPECT_EQ(runtime_family("/usr/lib/libscalapack-openmpi.so.2.2"), RuntimeFamily::Numerics);
  EXPECT_EQ(runtime_family("/usr/lib/x86_64-linux-gnu/libopenblas.so.0"), RuntimeFamily::Numerics);
  EXPECT_EQ(runtime_family("/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4"), RuntimeFamily::Allocator);
  EXPECT_EQ(runtime_family("/usr/lib/x86_64-linux-gnu/libtbbmalloc_proxy.so.2"), RuntimeFamily::Allocator);
  EXPECT_EQ(runtime_family("/opt/cp2k/lib/libcp2k.so"), RuntimeFamily::None);
  EXPECT_EQ(runtime_family_row(RuntimeFamily::Fortran), "[Fortran runtime data]");
  EXPECT_EQ(runtime_family_row(RuntimeFamily::Numerics), "[numerical library data]");
  EXPECT_EQ(runtime_family_row(RuntimeFamily::Allocator), "[allocator data]");
}

Location at(std::string function, std::string file, std::string module) {
  return Location{std::move(function), std::move(file), 1, std::move(module), 0x10, true};
}

// Boost.Pool is header-only: its frames are inlined into the program and must count as the
// allocator's, whatever --alloc-wrapper says.
TEST(RuntimeNaming, BoostPoolFramesAreTheAllocators) {
  const std::string app = "/opt/app/bin/app";
  for (const char* f : {"boost::pool<boost::default_user_allocator_new_delete>::malloc_need_resize()",
                        "boost::object_pool<Cell, boost::default_user_allocator_new_delete>::construct()",
                        "boost::default_user_allocator_new_delete::malloc(unsigned long)",
                        "boost::singleton_pool<boost::fast_pool_allocator_tag, 16u>::malloc()"})
    EXPECT_TRUE(is_allocator_or_runtime(at(f, "", app))) << f;
  EXPECT_TRUE(is_allocator_or_runtime(at("anything", "/usr/include/boost/pool/pool.hpp", app)));
  std::vector<Location> path = {at("operator new[](unsigned long)", "", "/lib/libstdc++.so.6"),
                                at("boost::default_user_allocator_new_delete::malloc(unsigned long)",
                                   "/usr/include/boost/pool/pool.hpp", app),
                                at("boost::pool<boost::default_user_allocator_new_delete>::malloc_need_resize()",
                                   "/usr/include/boost/pool/pool.hpp", app),
                                at("make_cells(int)", "/src/cells.cpp", app)};
  EXPECT_EQ(heap_site_frame(path), 3u);
}

// A frame recovered as a tail call in stripped code is an address (its callee's name is
// "cp2k.psmp!0x52000"): it is not a caller one can recognise, and the label looks past it for one
// (CP2K from Debian: 94,575 labels started "in cp2k.psmp!0x...").
TEST(RuntimeNaming, AnAddressIsNotACallersName) {
  Profile db;
  db.kind = FileKind::Database;
  db.set_meta("source", "soft");
  db.modules = {{"/usr/bin/cp2k.psmp", "", 0}, {"/lib/x86_64-linux-gnu/libc.so.6", "", 0}};
  db.sites = {{AllocApi::Malloc, 0, {{1, 0x10}, {0, 0x3f180}, {0, 0x60010}, {0, 0x70010}}, 1, 4096}};
  Tree t = new_tree(0);
  heap_sample(t, 0, {{0, 0x70010}}, 5);
  db.trees = {t};
  db.symbols = {
      Symbolized{{0, 0x3f180}, {{"cp2k.psmp!0x3f100", "", 0}}, {"cp2k.psmp!0x52000", "", 0}},
      Symbolized{{0, 0x60010}, {{"cp2k.psmp!0x60000", "", 0}}, {}},
      Symbolized{{0, 0x70010}, {{"__qs_energy_MOD_qs_energies", "", 0}}, {}},
      Symbolized{{1, 0x10}, {{"malloc", "", 0}}, {}},
  };
  ReportModel m = build_report_model(db);
  std::vector<std::string> names = heap_names(m);
  ASSERT_EQ(names.size(), 1u);
  EXPECT_EQ(names[0].find("in cp2k.psmp!0x"), std::string::npos) << names[0];
  EXPECT_EQ(names[0].rfind("in qs_energy::qs_energies (cp2k.psmp!0x", 0), 0u) << names[0];
}

}  // namespace
}  // namespace hpcl::analysis
