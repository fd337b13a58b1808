// How the report stays readable and honest on real codes: C++ names shortened for tables, tables
// that fit 80 and 120 columns (golden files), runtime libraries folded into one row per family,
// variables without samples hidden from the text table, 95% intervals of shares, and offset
// histograms from process profiles through merge to JSON.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "hpcl/text/cxx_names.h"
#include "hpcl/text/format_common.h"
#include "output/exports.h"
#include "output/formatters.h"
#include "merge/merge.h"
#include "profile_builder.h"
#include "model/report_model.h"
#include "model/runtime_libs.h"
#include "model/stats.h"

#include <nlohmann/json.hpp>

// Reports are read back with nlohmann-json, which refuses what RFC 8259 refuses.
using Json = nlohmann::json;

namespace hpcl::analysis {
namespace {

using namespace hpcl::testing;

// ---- C++ names -------------------------------------------------------------------------------

TEST(CxxNames, ParameterListsAreDropped) {
  EXPECT_EQ(drop_parameter_lists("f(int, char*) const (a.cc:3)"), "f (a.cc:3)");
  EXPECT_EQ(drop_parameter_lists("ns::C::operator()(int) (a.cc:3)"), "ns::C::operator() (a.cc:3)");
  EXPECT_EQ(drop_parameter_lists("std::vector<int>::operator[](unsigned long)"),
            "std::vector<int>::operator[]");
  EXPECT_EQ(drop_parameter_lists("(anonymous namespace)::g(double) (b.cc)"),
            "(anonymous namespace)::g (b.cc)");
  EXPECT_EQ(drop_parameter_lists("plain_c (c.c:9)"), "plain_c (c.c:9)");
  EXPECT_EQ(drop_parameter_lists("broken(int"), "broken(int");
}

TEST(CxxNames, TemplateArgumentsAreDropped) {
  EXPECT_EQ(drop_template_arguments("std::vector<int, std::allocator<int> >::push_back"),
            "std::vector::push_back");
  EXPECT_EQ(drop_template_arguments("ns::operator<<(std::ostream&, X const&)"),
            "ns::operator<<(std::ostream&, X const&)");
  EXPECT_EQ(drop_template_arguments("ns::operator< <Foo>(a, b)"), "ns::operator< <Foo>(a, b)");
  EXPECT_EQ(drop_template_arguments("f<3>::g"), "f::g");
}

TEST(CxxNames, TidyBriefAndTypePrefixes) {
  EXPECT_EQ(tidy_cxx_name("(anonymous namespace)::Mesh::Mesh (m.cpp:3)"), "Mesh::Mesh (m.cpp:3)");
  EXPECT_EQ(tidy_cxx_name("std::__cxx11::basic_string<char>::_M_create[abi:cxx11](int)"),
            "std::__cxx11::basic_string<char>::_M_create(int)");
  EXPECT_EQ(tidy_cxx_name("Foam::List<Foam::Tensor<double> >"), "Foam::List<Foam::Tensor<double>>");
  // A function template's return type goes; names with spaces that are no return type stay.
  EXPECT_EQ(tidy_cxx_name("Foam::tmp<Foam::Field<double> > Foam::operator*<Foam::Field, double>(X const&) (lib.so+0x10)"),
            "Foam::operator*<Foam::Field, double>(X const&) (lib.so+0x10)");
  EXPECT_EQ(tidy_cxx_name("void std::vector<int>::_M_realloc_insert<int>(int&&)"),
            "std::vector<int>::_M_realloc_insert<int>(int&&)");
  EXPECT_EQ(tidy_cxx_name("unsigned long f<3>(int) (a.cc:2)"), "f<3>(int) (a.cc:2)");
  EXPECT_EQ(tidy_cxx_name("Foam::List<double> in Foam::tmp<Foam::Field<double> > Foam::operator-<double>(X) (l.so+0x9)"),
            "Foam::List<double> in Foam::operator-<double>(X) (l.so+0x9)");
  for (const char* kept : {"operator new(unsigned long)", "make_grid (grid.c:41)", "SysV shm key 0x2a",
                           "/scratch/my run/w.bin", "PMPI_Init in main (m.c:3)", "f [clone .cold] (a.c:1)",
                           "Field<double> in make (f.cpp:3)", "Foam::PCG::scalarSolve(int) const (lib.so+0x5)"})
    EXPECT_EQ(tidy_cxx_name(kept), kept);
  EXPECT_EQ(brief_template_arguments("Foam::GeometricField<Foam::Tensor<double>, Foam::fvPatchField, Foam::volMesh>"),
            "Foam::GeometricField<Tensor<double>, \u2026>");
  EXPECT_EQ(brief_template_arguments("Eigen::Matrix<double, -1, 1, 0, -1, 1> in make (f.cpp:3)"),
            "Eigen::Matrix<double, \u2026> in make (f.cpp:3)");
  EXPECT_EQ(brief_template_arguments("ns::operator<<(std::ostream&)"), "ns::operator<<(std::ostream&)");
  EXPECT_EQ(type_prefix_end("cfd::Field<double> in make (f.cpp:3)"), 18u);
  EXPECT_EQ(type_prefix_end("_gfortran_string_trim in qs_energy (qs.F:9)"), 21u);
  EXPECT_EQ(type_prefix_end("u = np.zeros(n) (s.py:4)"), std::string::npos);
  EXPECT_EQ(type_prefix_end("make (f.cpp:3)"), std::string::npos);
  EXPECT_EQ(type_prefix_end("std::map<int, in t>::f"), std::string::npos);
}

TEST(CxxNames, TypePrefixesKeepTheirFirstArgument) {
  std::vector<std::string> names = {
      "Foam::GeometricField<Foam::Tensor<double>, Foam::fvPatchField, Foam::volMesh> in "
      "Foam::fv::gaussGrad<Foam::Vector<double> >::calcGrad(X const&) (gaussGrad.C:54)",
      "Foam::GeometricField<Foam::Vector<double>, Foam::fvPatchField, Foam::volMesh> in "
      "Foam::fv::gaussGrad<double>::calcGrad(Y const&) (gaussGrad.C:54)",
      "(anonymous namespace)::Mesh::Mesh (m.cpp:3)"};
  simplify_names(names);
  EXPECT_EQ(names[0], "Foam::GeometricField<Tensor<double>, \u2026> in Foam::fv::gaussGrad::calcGrad (gaussGrad.C:54)");
  EXPECT_EQ(names[1], "Foam::GeometricField<Vector<double>, \u2026> in Foam::fv::gaussGrad::calcGrad (gaussGrad.C:54)");
  EXPECT_EQ(names[2], "Mesh::Mesh (m.cpp:3)");
}

TEST(CxxNames, ShortenedOnlyWhereStillUnique) {
  std::vector<std::string> names = {"LAMMPS_NS::Pair<double>::compute(int, int) (pair.cpp:1)",
                                    "LAMMPS_NS::Pair<float>::compute(int, int) (pair.cpp:1)",
                                    "solve(int) (s.c:3)", "solve(double) (s.c:3)",
                                    "init(Grid&) (i.cc:2)"};
  simplify_names(names);
  // The two instantiations differ only in their template arguments: those stay.
  EXPECT_EQ(names[0], "LAMMPS_NS::Pair<double>::compute (pair.cpp:1)");
  EXPECT_EQ(names[1], "LAMMPS_NS::Pair<float>::compute (pair.cpp:1)");
  // Two overloads on one line keep their parameters.
  EXPECT_EQ(names[2], "solve(int) (s.c:3)");
  EXPECT_EQ(names[3], "solve(double) (s.c:3)");
  EXPECT_EQ(names[4], "init (i.cc:2)");
}

TEST(ShortenLabel, KeepsLastComponentAndLocation) {
  const std::string label = "LAMMPS_NS::PairLJCutCoulLong::compute (pair_lj_cut_coul_long.cpp:215)";
  EXPECT_EQ(shorten_label(label, 200), label);
  EXPECT_EQ(shorten_label(label, 55), "LAMMPS_NS::Pa\u2026::compute (pair_lj_cut_coul_long.cpp:215)");
  EXPECT_EQ(display_width(shorten_label(label, 55)), 55u);
  // Too narrow for the location with a 16-column name: the name alone.
  EXPECT_EQ(shorten_label(label, 30), "LAMMPS_NS::PairLJCut\u2026::compute");
  EXPECT_EQ(shorten_label("a_c_function (file.c:3)", 14), "a_c_function");
  // A heap label's caller suffix goes first; without lines, the module offset is kept.
  const std::string grow = "LAMMPS_NS::AtomVec::grow(int) (liblammps.so.0+0x290efa) \u2190 "
                           "LAMMPS_NS::AtomVecAtomic::unpack_border(int, int, double*) (liblammps.so.0+0x2a0b1c)";
  EXPECT_EQ(shorten_label(grow, 41), "LAMMPS_NS::AtomVec::grow(int) (+0x290efa)");
  EXPECT_EQ(shorten_label(grow, 40), "LAMMPS_NS::AtomVec::grow(int)");
  EXPECT_NE(shorten_label(grow, 41), shorten_label(
      "LAMMPS_NS::AtomVec::grow(int) (liblammps.so.0+0x290dac) \u2190 "
      "LAMMPS_NS::AtomVecAtomic::unpack_border(int, int, double*) (liblammps.so.0+0x2a0b1c)", 41));
  EXPECT_EQ(shorten_label(grow, 30).find("unpack_border"), std::string::npos);
  EXPECT_EQ(shorten_label("LAMMPS_NS::Neighbor::build", 20), "LAMMPS_NS::N\u2026::build");
  // "#2" tells rows with one label apart: it stays.
  const std::string second = "std::vector<nbnxn_cj_t> in PairlistSet::constructPairlists "
                             "(libgromacs_mpi.so.7!0x4df710+0x431) #2";
  EXPECT_EQ(shorten_label(second, 22), "std::vect\u2026Pairlists #2");
  EXPECT_EQ(display_width(shorten_label(second, 22)), 22u);
}

// ---- statistics ------------------------------------------------------------------------------

TEST(ShareInterval, WilsonKnownValues) {
  ShareInterval a = share_interval(40, 40, 0, 80);
  EXPECT_DOUBLE_EQ(a.share, 0.5);
  EXPECT_NEAR(a.low, 0.3929742, 1e-7);
  EXPECT_NEAR(a.high, 0.6070258, 1e-7);
  ShareInterval zero = share_interval(0, 0, 0, 100);  // "rule of three"-like upper bound
  EXPECT_NEAR(zero.low, 0.0, 1e-12);
  EXPECT_NEAR(zero.high, 0.0369935, 1e-7);
  ShareInterval b = share_interval(81, 81, 0, 1000);
  EXPECT_NEAR(b.low, 0.0656496, 1e-7);
  EXPECT_NEAR(b.high, 0.0995572, 1e-7);
  EXPECT_EQ(share_interval(1, 1, 0, 0).high, 0.0);  // no samples at all
}

TEST(ShareInterval, EstimatedCountsAddTheirVariance) {
  // 10 observed samples standing for 160 (one in 16 tracked), variance 2400, of 1000.
  ShareInterval r = share_interval(10, 160, 2400, 1000);
  EXPECT_DOUBLE_EQ(r.share, 0.16);
  // binomial part: 10 * (1 - 10/1000) * 16^2 = 2534.4; plus 2400; half = 1.96 * sqrt(4934.4) / 1000
  const double half = 1.959963984540054 * std::sqrt(2534.4 + 2400) / 1000;
  EXPECT_NEAR(r.low, 0.16 - half, 1e-12);
  EXPECT_NEAR(r.high, 0.16 + half, 1e-12);
}

TEST(HotRange, SmallestRunWithTheFraction) {
  std::vector<uint64_t> bins(32, 0);
  for (int b = 0; b < 8; ++b) bins[b] = 10;
  HotRange r = hot_range(bins, 0.8);
  EXPECT_EQ(r.first, 0u);
  EXPECT_EQ(r.last, 6u);  // 70 of 80 samples: the smallest run with 80%
  EXPECT_EQ(r.count, 70u);
  bins.assign(32, 0);
  bins[31] = 5;
  r = hot_range(bins, 0.8);
  EXPECT_EQ(r.first, 31u);
  EXPECT_EQ(r.last, 31u);
  EXPECT_EQ(hot_range(std::vector<uint64_t>(32, 0), 0.8).count, 0u);
}

TEST(RuntimeFamilies, ByFileName) {
  EXPECT_EQ(runtime_family("/usr/lib/x86_64-linux-gnu/libmpi.so.40"), RuntimeFamily::Mpi);
  EXPECT_EQ(runtime_family("/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_pml_ob1.so"), RuntimeFamily::Mpi);
  EXPECT_EQ(runtime_family("/usr/lib/x86_64-linux-gnu/libopen-rte.so.40"), RuntimeFamily::Mpi);
  EXPECT_EQ(runtime_family("/usr/lib/x86_64-linux-gnu/ucx/libuct_ib.so.0"), RuntimeFamily::Mpi);
  EXPECT_EQ(runtime_family("/usr/lib/x86_64-linux-gnu/libpmix.so.2"), RuntimeFamily::Mpi);
  EXPECT_EQ(runtime_family("/usr/lib/x86_64-linux-gnu/libhwloc.so.15"), RuntimeFamily::Mpi);
  EXPECT_EQ(runtime_family("/usr/lib/x86_64-linux-gnu/libevent_core-2.1.so.7"), RuntimeFamily::Mpi);
  EXPECT_EQ(runtime_family("/usr/lib/x86_64-linux-gnu/libgomp.so.1"), RuntimeFamily::OpenMp);
  EXPECT_EQ(runtime_family("/usr/lib/llvm-14/lib/libomp.so.5"), RuntimeFamily::OpenMp);
  EXPECT_EQ(runtime_family("/lib/x86_64-linux-gnu/libc.so.6"), RuntimeFamily::Cxx);
  EXPECT_EQ(runtime_family("/lib64/ld-linux-x86-64.so.2"), RuntimeFamily::Cxx);
  EXPECT_EQ(runtime_family("/usr/lib/x86_64-linux-gnu/libstdc++.so.6"), RuntimeFamily::Cxx);
  EXPECT_EQ(runtime_family("/lib/x86_64-linux-gnu/libm.so.6"), RuntimeFamily::Cxx);
  EXPECT_EQ(runtime_family("/opt/app/lib/libmylib.so"), RuntimeFamily::None);
  EXPECT_EQ(runtime_family("/opt/app/bin/lmp"), RuntimeFamily::None);
  EXPECT_EQ(runtime_family(""), RuntimeFamily::None);
  EXPECT_EQ(runtime_family_row(RuntimeFamily::OpenMp), "[OpenMP runtime data]");
}

// ---- a database of a C++ MPI+OpenMP code ------------------------------------------------------

const std::string kApp = "/opt/lammps/bin/lmp";
const std::string kMpi = "/usr/lib/x86_64-linux-gnu/libmpi.so.40";
const std::string kPal = "/usr/lib/x86_64-linux-gnu/libopen-pal.so.40";
const std::string kVader = "/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_btl_vader.so";
const std::string kGomp = "/usr/lib/x86_64-linux-gnu/libgomp.so.1";
const std::string kLibc = "/lib/x86_64-linux-gnu/libc.so.6";

// 1000 samples: two LAMMPS heap arrays with long names, one static; MPI data in three libraries
// (a heap site named inside libopen-pal, statics of libmpi and mca_btl_vader); libgomp and libc
// statics; and a zero-sample site and static.
Profile lammps_database() {
  Profile db;
  db.kind = FileKind::Database;
  db.set_meta("tool", "hpcprof-lite");
  db.set_meta("processes", "4");
  db.set_meta("threads", "8");
  db.set_meta("ranks", "4");
  db.set_meta("source", "soft");
  db.set_meta("min_bytes", "4096");
  db.set_meta("small_every", "64");
  db.set_meta("samples_total", "1010");
  db.set_meta("samples_dropped", "10");
  db.set_meta("samples_dropped_full", "10");
  db.set_meta("samples_in_runtime", "7");
  db.set_meta("samples_unresolved", "2");
  db.set_meta("skipped", "");
  db.modules = {{kApp, "", 0}, {kMpi, "", 0}, {kPal, "", 0}, {kVader, "", 0}, {kGomp, "", 0}, {kLibc, "", 0}};
  db.sites = {
      {AllocApi::Malloc, 0, {{0, 0x1000}}, 4, 64u << 20},   // Memory::smalloc in Atom
      {AllocApi::Malloc, 0, {{0, 0x1100}}, 4, 16u << 20},   // NeighList
      {AllocApi::Malloc, 0, {{2, 0x2000}}, 40, 40 * 1024},  // opal free list
      {AllocApi::Calloc, 0, {{0, 0x1200}}, 1, 4096},        // never sampled
  };
  db.statics = {{0, 0x8000, 800, 0, "_ZN9LAMMPS_NS5Force6tablesE"},
                {1, 0x100, 64, 0, "ompi_mpi_comm_world"},
                {3, 0x200, 128, 0, "mca_btl_vader_component"},
                {4, 0x300, 32, 0, "gomp_global_icv"},
                {5, 0x400, 8, 0, "__libc_errno_table"},
                {0, 0x9000, 8, 0, "never_touched"}};
  Tree t = new_tree(0);
  heap_sample(t, 0, {{0, 0x5000}}, 600);
  heap_sample(t, 1, {{0, 0x5100}}, 200);
  static_sample(t, 0, {{0, 0x5200}}, 50);
  heap_sample(t, 2, {{2, 0x6000}}, 40);
  static_sample(t, 1, {{1, 0x6100}}, 20);
  static_sample(t, 2, {{3, 0x6200}}, 10);
  static_sample(t, 3, {{4, 0x6300}}, 30);
  static_sample(t, 4, {{5, 0x6400}}, 5);
  unknown_sample(t, UnknownClass::Stack, {{0, 0x5300}}, 15);
  nodata_sample(t, {{4, 0x6500}}, 30);
  db.trees = {t};
  OffsetHistogram atom;
  atom.max = (64u << 20) / 4 - 8;
  for (int b = 0; b < 8; ++b) atom.bins[b] = 75;
  db.offsets = {atom};
  std::map<Frame, std::vector<SourceLoc>> syms = {
      {{0, 0x1000},
       {{"LAMMPS_NS::Memory::smalloc(long, char const*)", "/src/memory.cpp", 54},
        {"LAMMPS_NS::AtomVecFullKokkos<Kokkos::OpenMP>::grow(int)", "/src/KOKKOS/atom_vec_full_kokkos.cpp", 77}}},
      {{0, 0x1100}, {{"LAMMPS_NS::NeighListKokkos<Kokkos::OpenMP>::grow(int)", "/src/KOKKOS/neigh_list_kokkos.cpp", 61}}},
      {{0, 0x1200}, {{"LAMMPS_NS::Output::setup(int)", "/src/output.cpp", 240}}},
      {{0, 0x5000}, {{"LAMMPS_NS::PairLJCutCoulLongKokkos<Kokkos::OpenMP>::compute(int, int)", "/src/KOKKOS/pair_lj_cut_coul_long_kokkos.cpp", 215}}},
      {{0, 0x5100}, {{"LAMMPS_NS::NPairKokkos<Kokkos::OpenMP, 0, 1, 0, 0>::build(LAMMPS_NS::NeighList*)", "/src/KOKKOS/npair_kokkos.cpp", 302}}},
      {{0, 0x5200}, {{"LAMMPS_NS::PairLJCutCoulLongKokkos<Kokkos::OpenMP>::compute(int, int)", "/src/KOKKOS/pair_lj_cut_coul_long_kokkos.cpp", 230}}},
      {{0, 0x5300}, {{"LAMMPS_NS::Verlet::run(int)", "/src/verlet.cpp", 321}}},
      {{2, 0x2000}, {{"opal_free_list_grow_st", "", 0}}},
      {{2, 0x6000}, {{"opal_progress", "", 0}}},
      {{1, 0x6100}, {{"ompi_comm_size", "", 0}}},
      {{3, 0x6200}, {{"mca_btl_vader_component_progress", "", 0}}},
      {{4, 0x6300}, {{"gomp_team_barrier_wait_end", "", 0}}},
      {{5, 0x6400}, {{"strerror", "", 0}}},
      {{4, 0x6500}, {{"gomp_barrier_wait_end", "", 0}}},
  };
  for (auto& [f, locs] : syms) db.symbols.push_back(Symbolized{f, locs});
  return db;
}

std::string text_report(const ReportModel& m, size_t width, bool all = false) {
  std::ostringstream out;
  ReportOptions o;
  o.width = width;
  o.all = all;
  write_text(m, o, out);
  return out.str();
}

bool updating() {
  const char* v = std::getenv("HPCL_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

void check_golden_text(const std::string& name, const std::string& text) {
  const std::string path = std::string(ANALYZER_GOLDEN_DIR) + "/tables/" + name;
  if (updating()) {
    std::ofstream(path) << text;
    GTEST_SKIP() << "rewrote " << path;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << path << " is missing; HPCL_UPDATE_GOLDEN=1 creates it";
  std::stringstream golden;
  golden << in.rdbuf();
  EXPECT_EQ(text, golden.str()) << "(if intended: HPCL_UPDATE_GOLDEN=1 analyzer_tests)";
}

size_t widest_line(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  size_t w = 0;
  bool table = false;
  while (std::getline(lines, line)) {
    table |= line.starts_with("#  ");
    if (table && !line.empty() && line[0] != '(' && line[0] != '*') w = std::max(w, display_width(line));
    if (line.empty()) table = false;
  }
  return w;
}

TEST(ReportTables, Golden80And120Columns) {
  ReportModel m = build_report_model(lammps_database());
  const std::string t80 = text_report(m, 80), t120 = text_report(m, 120);
  EXPECT_LE(widest_line(t80), 80u) << t80;
  EXPECT_LE(widest_line(t120), 120u) << t120;
  check_golden_text("lammps-80.text", t80);
  check_golden_text("lammps-120.text", t120);
  ReportModelOptions o;
  o.group_runtime = false;
  check_golden_text("lammps-nogroup-120.text", text_report(build_report_model(lammps_database(), o), 120));
  // --wide: nothing is cut, though parameter lists still go where names stay distinct.
  std::string wide = text_report(m, 0);
  EXPECT_NE(wide.find("LAMMPS_NS::PairLJCutCoulLongKokkos::compute (pair_lj_cut_coul_long_kokkos.cpp:215)"),
            std::string::npos) << wide;
  EXPECT_EQ(wide.find("\u2026"), std::string::npos) << wide;
}

// Columns of the table's header line: where the variable column starts and the next begins.
size_t name_column_width(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line))
    if (line.starts_with("#  variable")) return line.find("kind") - line.find("variable");
  return 0;
}

// Rows as a stripped CP2K run on 2 ranks gives them: heap sites named by code addresses, the
// hottest access too, an imbalance column.
ReportModel stripped_two_rank_model() {
  ReportModel m;
  m.source = "soft";
  m.processes = 2;
  m.ranks = 2;
  m.balance_ranks = 2;
  m.total_samples = m.samples_taken = 20000;
  const char* names[][2] = {
      {"cp2k.psmp!0x1cad680+0x6a7 \u2190 \u2026 \u2190 cp2k.psmp!0x15f8ba0+0x16e0", "cp2k.psmp!0x1cb7dd0+0x49d5"},
      {"cp2k.psmp!0x2792810+0x55 \u2190 \u2026 \u2190 cp2k.psmp!0x2484c80+0x290", "cp2k.psmp!0x1cb0b20+0x6c2b"},
      {"cp2k.psmp!0x1cad680+0x6a7 \u2190 \u2026 \u2190 cp2k.psmp!0x3d9170+0xa22", "cp2k.psmp!0x1cb7dd0+0x499b"},
      {"cp2k.psmp!0x28ffac0+0x4e \u2190 \u2026 \u2190 cp2k.psmp!0x292ff10+0xcac #14", "dgemm_ (libblas.so.3)"},
      {"cp2k.psmp!0x28ffac0+0x4e \u2190 \u2026 \u2190 cp2k.psmp!0x292ff10+0xcac #3", "dgemm_ (libblas.so.3)"},
      {"cp2k.psmp!0x28ffac0+0x4e \u2190 \u2026 \u2190 cp2k.psmp!0x292ce30+0xf #33", "dgemm_ (libblas.so.3)"}};
  uint64_t samples = 6000;
  for (const auto& [name, hottest] : names) {
    Variable v;
    v.kind = VariableKind::Heap;
    v.name = name;
    v.samples = samples;
    v.samples_estimated = double(samples);
    v.share = double(samples) / 20000;
    v.bytes = 16u << 20;
    v.allocator = "malloc";
    v.hottest_access = hottest;
    v.has_balance = true;
    v.ranks.count = v.ranks.with = 2;
    v.ranks.imbalance = 1.02;
    v.ranks.max_group.rank = 1;
    m.variables.push_back(v);
    samples /= 2;
  }
  // The widest figure cells of that run: an unknown-data row, and a group with an estimate.
  Variable stack;
  stack.kind = VariableKind::Unknown;
  stack.name = "[stack]";
  stack.samples = 41350;
  stack.samples_estimated = 41350;
  stack.hottest_access = "cp2k.psmp!0x1cb0b20+0x695b";
  m.variables.insert(m.variables.begin(), stack);
  Variable mpi;
  mpi.kind = VariableKind::Group;
  mpi.name = "[MPI runtime data]";
  mpi.samples = 1717;
  mpi.samples_estimated = 1969;
  mpi.bytes = 15u << 20;
  mpi.libraries.resize(14);
  mpi.hottest_access = "mca_btl_vader.so!0x4d50+0x155";
  m.variables.push_back(mpi);
  return m;
}

// The names keep 3/10 of the width (or all they need) while an optional column can go
// instead. Squeezed to their minimum beside every optional column, these names had 23 columns at
// 120, fewer than the 31 they had at 80, where those columns were dropped: from 100 columns on,
// a name is never narrower than at 80.
TEST(ReportTables, NamesAreNoNarrowerAtWiderTerminals) {
  for (const ReportModel& m : {stripped_two_rank_model(), build_report_model(lammps_database())}) {
    const size_t at80 = name_column_width(text_report(m, 80));
    for (size_t width : {100, 110, 120, 140, 160}) {
      const std::string t = text_report(m, width);
      EXPECT_GE(name_column_width(t), at80) << "at " << width << " columns:\n" << t;
      EXPECT_LE(widest_line(t), width) << t;
    }
  }
}

// Every line of a text report, the table's and the notes' alike.
size_t widest_of_all_lines(const std::string& text) {
  std::istringstream lines(text);
  size_t w = 0;
  for (std::string line; std::getline(lines, line);) w = std::max(w, display_width(line));
  return w;
}

// The table fits the terminal from 80 columns on even when the columns that stay at every width
// (the sort column among them) need more than is left beside a name at its minimum: the name
// then gives way below it. e2e.rank_balance printed an 81-column header at 80 columns, sorted
// by imbalance with estimated samples ("273 (\u2248221)") and a 9-digit byte count. In samples
// order three columns go, and the line that names them is wrapped like the notes (e2e.example_
// heat2d, under load: "(hidden at this width: imbalance, allocator / module, hottest access;
// --wide shows them)" in 88 columns at 80).
TEST(ReportTables, TheSortedTableFitsFrom80Columns) {
  ReportModel m = stripped_two_rank_model();
  m.variables[1].samples_estimated = 21000;  // "3000 (\u224821000)"
  m.variables[2].bytes = 100u << 20;         // "100.0 MiB"
  m.variables[2].ranks.imbalance = 1.99;
  bool three_hidden = false;
  for (VariableOrder order : {VariableOrder::Imbalance, VariableOrder::Samples}) {
    m.order = order;
    for (size_t width = 80; width <= 160; ++width) {
      const std::string t = text_report(m, width);
      ASSERT_LE(widest_of_all_lines(t), width) << t;
      if (order == VariableOrder::Imbalance) {
        EXPECT_NE(t.find("imbalance"), std::string::npos) << "the sort column went at " << width << ":\n" << t;
      }
      three_hidden |= t.find("(hidden at this width: imbalance, allocator / module, hottest") != std::string::npos;
    }
  }
  EXPECT_TRUE(three_hidden) << "no width hides three columns: the wrapped note is not tested";
}

// Each format's writer gets the allocation paths it reads and prints the same as with every path
// kept (--all on CP2K as text: 1.12 GB -> 0.81 GB): names, allocators and the runtime groups come
// from the paths before they go.
TEST(ReportTables, EachFormatPrintsTheSameWithOnlyThePathsItReads) {
  for (bool group : {true, false}) {
    ReportModelOptions kept;
    kept.group_runtime = group;
    kept.all_variables = true;
    const ReportModel a = build_report_model(lammps_database(), kept);
    for (std::string format : {"text", "csv", "json", "folded", "html"}) {
      ReportModelOptions o = kept;
      o.keep_allocation_paths = format_reads_allocation_paths(format);
      const ReportModel b = build_report_model(lammps_database(), o);
      for (size_t width : {0, 80, 120}) {
        ReportOptions ro;
        ro.width = width;
        ro.all = true;
        ro.top = 0;
        std::ostringstream x, y;
        auto write = [&](const ReportModel& m, std::ostream& out) {
          if (format == "text") write_text(m, ro, out);
          else if (format == "csv") write_csv(m, ro, out);
          else if (format == "json") write_json(m, ro, out);
          else if (format == "folded") write_folded(m, ro, out);
          else write_html(m, ro, out);
        };
        write(a, x);
        write(b, y);
        EXPECT_EQ(x.str(), y.str()) << format << " at " << width;
      }
      if (!o.keep_allocation_paths) {
        for (const Variable& v : b.variables) EXPECT_TRUE(v.allocation_path.empty()) << v.name;
      }
    }
  }
}

TEST(ReportGroups, RuntimeLibrariesFoldIntoOneRowPerFamily) {
  ReportModel m = build_report_model(lammps_database());
  std::map<std::string, const Variable*> by_name;
  for (const Variable& v : m.variables) by_name[v.name] = &v;
  ASSERT_TRUE(by_name.count("[MPI runtime data]"));
  const Variable& mpi = *by_name["[MPI runtime data]"];
  EXPECT_EQ(mpi.kind, VariableKind::Group);
  EXPECT_EQ(mpi.samples, 70u);  // heap site in libopen-pal 40 + libmpi 20 + mca_btl_vader 10
  ASSERT_EQ(mpi.libraries.size(), 3u);
  EXPECT_EQ(mpi.libraries[0].module, kPal);
  EXPECT_EQ(mpi.libraries[0].samples, 40u);
  EXPECT_EQ(mpi.libraries[1].module, kMpi);
  EXPECT_EQ(mpi.libraries[2].module, kVader);
  EXPECT_EQ(mpi.hottest_access, "opal_progress (libopen-pal.so.40)");
  EXPECT_EQ(by_name["[OpenMP runtime data]"]->samples, 30u);
  EXPECT_EQ(by_name["[C/C++ runtime data]"]->samples, 5u);
  EXPECT_EQ(m.grouped_variables, 5u);
  EXPECT_FALSE(by_name.count("ompi_mpi_comm_world"));
  EXPECT_TRUE(by_name.count("[stack]"));  // unknown data is never a library's

  ReportModelOptions o;
  o.group_runtime = false;
  ReportModel flat = build_report_model(lammps_database(), o);
  EXPECT_EQ(flat.variables.size(), m.variables.size() + 5 - 3);
  EXPECT_EQ(flat.grouped_variables, 0u);

  std::ostringstream json;
  write_json(m, ReportOptions{View::Data, 0}, json);
  Json j = Json::parse(json.str());
  bool found = false;
  for (const Json& v : j.at("variables")) {
    if (v.at("name").get<std::string>() != "[MPI runtime data]") continue;
    found = true;
    EXPECT_EQ(v.at("kind").get<std::string>(), "group");
    EXPECT_EQ(v.at("libraries").size(), 3u);
    EXPECT_EQ(v.at("libraries").at(0).at("variables").get<uint64_t>(), 1u);
    EXPECT_EQ(v.at("libraries").at(1).at("samples").get<uint64_t>(), 20u);
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(j.at("totals").at("grouped_variables").get<uint64_t>(), 5u);
}

TEST(ReportRows, ZeroSampleVariablesHiddenFromTheTextOnly) {
  ReportModel m = build_report_model(lammps_database());
  std::string text = text_report(m, 200);
  EXPECT_EQ(text.find("never_touched"), std::string::npos);
  EXPECT_NE(text.find("(2 variables without samples not shown; --all shows them)"), std::string::npos);
  std::string all = text_report(m, 200, true);
  EXPECT_NE(all.find("never_touched"), std::string::npos);
  EXPECT_NE(all.find("LAMMPS_NS::Output::setup"), std::string::npos);
  // JSON and CSV list every variable.
  std::ostringstream json, csv;
  write_json(m, ReportOptions{View::Data, 0}, json);
  EXPECT_NE(json.str().find("never_touched"), std::string::npos);
  write_csv(m, ReportOptions{View::Data, 0}, csv);
  EXPECT_NE(csv.str().find("never_touched"), std::string::npos);
}

TEST(ReportHeader, SaysWhatTheSamplesCover) {
  ReportModel m = build_report_model(lammps_database());
  std::string text = text_report(m, 120);
  EXPECT_NE(text.find("samples: 1000   with a data address: 970 (97.0%)   without: 30 (3.0%)"),
            std::string::npos) << text;
  EXPECT_NE(text.find("untracked data: 15 (1.5%: [stack], [untracked heap], [unknown data]; 2 unresolved)"),
            std::string::npos) << text;
  EXPECT_NE(text.find("in the profiler's own work: 7 (0.7%, code time, no data address)"),
            std::string::npos) << text;
  EXPECT_NE(text.find("dropped: 10 of 1010 taken (1.0%), the thread's tree was full"),
            std::string::npos) << text;
  EXPECT_NE(text.find("1  hot: 0-22% of the block (bytes 0-16777208 sampled)"), std::string::npos) << text;
  // One of each reads as one: "1 sample was dropped", not "1 samples were dropped".
  Profile one = lammps_database();
  one.set_meta("samples_in_runtime", "1");
  one.set_meta("samples_dropped", "1");
  one.set_meta("allocs_lost", "1");
  text = text_report(build_report_model(one), 120);
  EXPECT_NE(text.find("Note: 1 sample interrupted the profiler's own allocation tracking; it is code"),
            std::string::npos) << text;
  EXPECT_NE(text.find("Note: 1 sample was dropped by the runtime"), std::string::npos) << text;
  EXPECT_NE(text.find("Note: 1 allocation was not tracked"), std::string::npos) << text;
  EXPECT_EQ(text.find(" 1 samples"), std::string::npos) << text;
}

// ---- offset histograms: process profiles -> files -> merge -> JSON ---------------------------

Profile quarter_process(int rank, bool reversed) {
  Profile p = new_process(rank);
  p.modules = {{"/nonexistent/app", "b1", 0x1000}};
  AllocSite grid{AllocApi::Malloc, 0, {{0, 0x100}}, 1, 1u << 20};
  AllocSite halo{AllocApi::Calloc, 0, {{0, 0x200}}, 1, 4096};
  // The site order differs between the processes: the merge must remap the histograms.
  p.sites = reversed ? std::vector<AllocSite>{halo, grid} : std::vector<AllocSite>{grid, halo};
  const uint32_t g = reversed ? 1 : 0;
  p.statics = {{0, 0x4000, 1024, 0, "table"}};
  Tree t = new_tree(10 + rank);
  heap_sample(t, g, {{0, 0x500}}, 10);
  heap_sample(t, 1 - g, {{0, 0x600}}, 2);
  static_sample(t, 0, {{0, 0x700}}, 4);
  p.trees = {t};
  OffsetHistogram h;
  h.index = g;
  h.min = 100u * (rank + 1);
  h.max = 200000u + rank;
  h.bins[0] = 6;
  h.bins[rank == 0 ? 3 : 7] = 4;
  OffsetHistogram s;
  s.owner = OffsetOwner::Static;
  s.index = 0;
  s.min = s.max = 1000;
  s.bins[31] = 4;
  p.offsets = {h, s};
  return p;
}

TEST(OffsetHistograms, ThroughWriterReaderMergeAndJson) {
  TempDir dir;
  write_or_fail(quarter_process(0, false), dir.file("a.hpcl"));
  write_or_fail(quarter_process(1, true), dir.file("b.hpcl"));
  MergeOptions mo;
  mo.symbolize = false;
  MergeOutcome merged = merge_directory(dir.path(), mo);
  ASSERT_TRUE(merged.error.empty()) << merged.error;
  ASSERT_EQ(merged.database.offsets.size(), 2u);
  // The database itself goes through the writer and the reader too.
  write_or_fail(merged.database, dir.file("db.hpcdb"));
  ReadResult r = read_profile_file(dir.file("db.hpcdb"));
  ASSERT_TRUE(r.ok) << r.error;
  ReportModel m = build_report_model(r.profile);
  std::ostringstream out;
  write_json(m, ReportOptions{View::Data, 0}, out);
  Json j = Json::parse(out.str());
  const Json* grid = nullptr;
  const Json* table = nullptr;
  for (const Json& v : j.at("variables")) {
    if (v.at("kind").get<std::string>() == "heap" && v.at("bytes").get<uint64_t>() == 2u << 20) grid = &v;
    if (v.at("kind").get<std::string>() == "static") table = &v;
    if (v.at("kind").get<std::string>() == "heap" && v.at("bytes").get<uint64_t>() == 8192) {
      EXPECT_FALSE(v.contains("offsets"));
    }
  }
  ASSERT_NE(grid, nullptr) << out.str();
  ASSERT_NE(table, nullptr);
  const Json& off = (*grid).at("offsets");
  ASSERT_EQ(off.at("bins").size(), 32u);
  EXPECT_EQ(off.at("bins").at(0).get<uint64_t>(), 12u);
  EXPECT_EQ(off.at("bins").at(3).get<uint64_t>(), 4u);
  EXPECT_EQ(off.at("bins").at(7).get<uint64_t>(), 4u);
  EXPECT_EQ(off.at("min").get<uint64_t>(), 100u);
  EXPECT_EQ(off.at("max").get<uint64_t>(), 200001u);
  EXPECT_EQ(off.at("hot").at("from").get<double>(), 0.0);
  EXPECT_EQ(off.at("hot").at("to").get<double>(), 0.125);  // bins 0-3 hold 16 of 20 samples
  EXPECT_EQ(off.at("hot").at("samples").get<uint64_t>(), 16u);
  EXPECT_EQ((*table).at("offsets").at("bins").at(31).get<uint64_t>(), 8u);
  EXPECT_EQ((*table).at("offsets").at("min").get<uint64_t>(), 1000u);
}

}  // namespace
}  // namespace hpcl::analysis
