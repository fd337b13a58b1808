// Names in table columns (output/table_names.h): cut to the column's width, rows whose labels
// differ keep looking different. The labels are those of real reports: LAMMPS from Debian (no
// line information: module offsets), the bundled heat2d example (OpenMP regions, lines), a
// program whose two sites differ only by their caller's line, stripped MPI code.
#include <gtest/gtest.h>

#include <set>

#include "hpcl/text/format_common.h"
#include "hpcl/text/table_names.h"

namespace hpcl::analysis {
namespace {

// Every cell within `width`, and cells of distinct labels distinct.
void expect_fitted_and_distinct(const std::vector<std::string>& labels, size_t width,
                                const std::vector<std::string>& cells) {
  ASSERT_EQ(cells.size(), labels.size());
  for (size_t i = 0; i < cells.size(); ++i) {
    EXPECT_LE(display_width(cells[i]), width) << cells[i];
    for (size_t j = i + 1; j < cells.size(); ++j)
      if (labels[i] != labels[j]) {
        EXPECT_NE(cells[i], cells[j]) << labels[i] << " / " << labels[j];
      }
  }
}

TEST(TableNames, SplitsLabelsIntoTheirParts) {
  LabelParts p = split_label("LAMMPS_NS::AtomVec::grow (liblammps.so.0+0x290efa) \u2190 "
                             "LAMMPS_NS::AtomVec::unpack_border (liblammps.so.0+0x28d3fa) #2");
  EXPECT_EQ(p.name, "LAMMPS_NS::AtomVec::grow");
  EXPECT_EQ(p.where, "liblammps.so.0+0x290efa");
  EXPECT_EQ(p.caller, "LAMMPS_NS::AtomVec::unpack_border (liblammps.so.0+0x28d3fa)");
  EXPECT_EQ(p.number, " #2");
  p = split_label("jacobi_step [omp region 0] (heat2d.c:85)");
  EXPECT_EQ(p.name, "jacobi_step");
  EXPECT_EQ(p.region, " [omp region 0]");
  EXPECT_EQ(p.where, "heat2d.c:85");
  p = split_label("(anonymous namespace)::f");
  EXPECT_EQ(p.name, "(anonymous namespace)::f");
  EXPECT_EQ(p.where, "");
  EXPECT_EQ(without_namespaces("LAMMPS_NS::AtomVec::grow"), "AtomVec::grow");
  EXPECT_EQ(without_namespaces("fields::total"), "fields::total");
  EXPECT_EQ(varying_part("heat2d.c:85"), ":85");
  EXPECT_EQ(varying_part("liblammps.so.0+0x290efa"), "+0x290efa");
  EXPECT_EQ(varying_part("liblammps.so.0"), "");
  EXPECT_EQ(varying_part("local of sweep_a, locals.c:6"), "local of sweep_a");
  EXPECT_EQ(varying_part("private, main [omp region 0], k.c:34"), "private, main");
  EXPECT_EQ(varying_part("automatic array of fields::sweep, f.f90:3"), "automatic array of sweep");
}

// LAMMPS at 120 columns gave its variable column 21: five rows read "LAMMPS_NS::Ato…::grow" or
// "LAMMPS_NS:…::allocate". The class and function stay, and the offset that tells them apart.
TEST(TableNames, LammpsSitesKeepClassFunctionAndOffset) {
  const std::vector<std::string> labels = {
      "LAMMPS_NS::AtomVec::grow (liblammps.so.0+0x290efa) \u2190 LAMMPS_NS::AtomVec::unpack_border (liblammps.so.0+0x28d3fa)",
      "LAMMPS_NS::AtomVec::grow (liblammps.so.0+0x290dac) \u2190 LAMMPS_NS::AtomVec::unpack_border (liblammps.so.0+0x28d3fa)",
      "LAMMPS_NS::LAMMPS::create (liblammps.so.0+0x462829)",
      "LAMMPS_NS::PairLJCut::allocate (liblammps.so.0+0x528569)",
      "LAMMPS_NS::PairLJCut::allocate (liblammps.so.0+0x5283da)",
      "[MPI runtime data]",
      "LAMMPS_NS::MyPage::allocate (liblammps.so.0+0x4cb41c) \u2190 LAMMPS_NS::NPairHalfBinAtomonlyNewton::build (liblammps.so.0+0x4e1c16)",
      "LAMMPS_NS::MyPage::allocate (liblammps.so.0+0x4cb41c) \u2190 LAMMPS_NS::MyPage::init (liblammps.so.0+0x4cb6a0)"};
  for (size_t width : {21u, 25u, 30u}) {
    std::vector<std::string> cells = fit_column(labels, width);
    expect_fitted_and_distinct(labels, width, cells);
  }
  std::vector<std::string> cells = fit_column(labels, 25);
  EXPECT_EQ(cells[0], "AtomVec::grow (+0x290efa)");
  EXPECT_EQ(cells[1], "AtomVec::grow (+0x290dac)");
  EXPECT_EQ(cells[2], "LAMMPS::create");  // alone of its name: no offset needed
  EXPECT_EQ(cells[5], "[MPI runtime data]");
  EXPECT_EQ(cells[6], "MyPage::allocate \u2190 build");  // the caller tells these two apart
  EXPECT_EQ(cells[7], "MyPage::allocate \u2190 init");
  // Wide enough, nothing is lost.
  EXPECT_EQ(fit_column(labels, 200), labels);
}

// Two sites that differ only by their caller's line (colsum.c), at the 21 columns an 80-column
// table leaves: both read "make_matrix" before.
TEST(TableNames, SitesThatDifferByTheCallersLine) {
  const std::vector<std::string> labels = {"make_matrix (colsum.c:19) \u2190 main (colsum.c:41)",
                                           "make_matrix (colsum.c:19) \u2190 main (colsum.c:42)"};
  std::vector<std::string> cells = fit_column(labels, 21);
  expect_fitted_and_distinct(labels, 21, cells);
  EXPECT_EQ(cells[0], "make\u2026rix \u2190 main (:41)");
  EXPECT_EQ(cells[1], "make\u2026rix \u2190 main (:42)");
  cells = fit_column(labels, 24);
  EXPECT_EQ(cells[0], "make_matrix \u2190 main (:41)");
}

// The code view at 80 columns showed six rows of "jacobi_step [omp region 0]" without their
// lines: the region suffix goes before the line.
TEST(TableNames, RegionSuffixGoesBeforeTheLine) {
  const std::vector<std::string> labels = {"jacobi_step [omp region 0] (heat2d.c:85)",
                                           "jacobi_step [omp region 0] (heat2d.c:84)",
                                           "column_means_bad [omp region 0] (heat2d.c:101)",
                                           "opal_progress (libopen-pal.so.40)"};
  std::vector<std::string> cells = fit_column(labels, 27);
  expect_fitted_and_distinct(labels, 27, cells);
  EXPECT_EQ(cells[0], "jacobi_step (heat2d.c:85)");
  EXPECT_EQ(cells[1], "jacobi_step (heat2d.c:84)");
  EXPECT_EQ(cells[3], "opal_progress");
}

// Code known only by its bounds: the differing offset stays, the module name is what gives way.
TEST(TableNames, UnnamedCodeKeepsTheDifferingOffset) {
  const std::vector<std::string> labels = {"mca_btl_vader.so!0x4d50+0x175", "mca_btl_vader.so!0x4d50+0x241",
                                           "in cp2k.psmp!0x10f86d0 (cp2k.psmp!0x10f86d0+0x431)",
                                           "in cp2k.psmp!0x10f86d0 (cp2k.psmp!0x10f86d0+0x52c)"};
  for (size_t width : {14u, 17u, 22u}) {
    std::vector<std::string> cells = fit_column(labels, width);
    expect_fitted_and_distinct(labels, width, cells);
    EXPECT_NE(cells[0].find("+0x175"), std::string::npos) << cells[0];
    EXPECT_NE(cells[2].find("+0x431"), std::string::npos) << cells[2];
  }
}

// Unnamed frames (a stripped program) alike but for the outermost caller: that frame stays whole
// behind its arrow; the cut never glues one frame's module to another's address (CP2K at 80
// columns showed "cp2k.psmp!0x…!0x15f8ba0+0x16e0").
TEST(TableNames, ChainsKeepTheDifferingFrameWhole) {
  const std::vector<std::string> labels = {
      "cp2k.psmp!0x1cad680+0x6a7 \u2190 \u2026 \u2190 cp2k.psmp!0x15f8ba0+0x16e0",
      "cp2k.psmp!0x1cad680+0x6a7 \u2190 \u2026 \u2190 cp2k.psmp!0x3d9170+0xa22",
      "cp2k.psmp!0x2792810+0x55 \u2190 \u2026 \u2190 cp2k.psmp!0x2484c80+0x290"};
  for (size_t width : {30u, 36u, 44u}) {
    std::vector<std::string> cells = fit_column(labels, width);
    expect_fitted_and_distinct(labels, width, cells);
    const std::string ends0 = "\u2190 cp2k.psmp!0x15f8ba0+0x16e0", ends1 = "\u2190 cp2k.psmp!0x3d9170+0xa22";
    EXPECT_EQ(cells[0].substr(cells[0].size() - ends0.size()), ends0) << width << ": " << cells[0];
    EXPECT_EQ(cells[1].substr(cells[1].size() - ends1.size()), ends1) << width << ": " << cells[1];
    EXPECT_EQ(cells[0].find("!0x\u2026"), std::string::npos) << cells[0];
  }
  // Narrower than the frame: its address stays behind the arrow, its module gives way.
  std::vector<std::string> cells = fit_column(labels, 22);
  expect_fitted_and_distinct(labels, 22, cells);
  EXPECT_EQ(cells[0], "\u2026 \u2190 \u2026!0x15f8ba0+0x16e0");
  EXPECT_EQ(cells[1], "\u2026 \u2190 \u2026!0x3d9170+0xa22");
}

// Sites told apart only by their number: the number stays last, after the caller, as in the
// whole label, and an unnamed frame keeps its address while its module gives way.
TEST(TableNames, NumberedUnnamedSitesKeepAddressAndNumber) {
  const std::vector<std::string> labels = {
      "cp2k.psmp!0x28ffac0+0x4e \u2190 \u2026 \u2190 cp2k.psmp!0x292ff10+0xcac #14",
      "cp2k.psmp!0x28ffac0+0x4e \u2190 \u2026 \u2190 cp2k.psmp!0x292ff10+0xcac #3",
      "cp2k.psmp!0x28ffac0+0x4e \u2190 \u2026 \u2190 cp2k.psmp!0x292ce30+0xf #33"};
  std::vector<std::string> cells = fit_column(labels, 26);
  expect_fitted_and_distinct(labels, 26, cells);
  for (size_t i = 0; i < cells.size(); ++i) {
    EXPECT_NE(cells[i].find("!0x28ffac0+0x4e"), std::string::npos) << cells[i];
    const std::string number = labels[i].substr(labels[i].rfind(" #"));
    EXPECT_EQ(cells[i].substr(cells[i].size() - number.size()), number) << cells[i];
  }
}

// Labels alike but for their namespace, and a column too narrow for any difference: numbered.
TEST(TableNames, NamespacesAndNumbersAsLastResorts) {
  const std::vector<std::string> labels = {"alpha::Grid::make", "beta::Grid::make"};
  std::vector<std::string> cells = fit_column(labels, 12);
  expect_fitted_and_distinct(labels, 12, cells);
  EXPECT_EQ(cells[0].substr(0, 2), "al") << cells[0];
  const std::vector<std::string> tiny = {"a_very_long_function_name_one", "a_very_long_function_name_two"};
  cells = fit_column(tiny, 8);
  expect_fitted_and_distinct(tiny, 8, cells);
}

TEST(TableNames, OneRowOneLine) {
  EXPECT_EQ(printable_line("evil\nname\x1b[2J\a\tx"), "evil?name?[2J? x");
}

}  // namespace
}  // namespace hpcl::analysis

namespace hpcl::analysis {
namespace {

// OpenFOAM's gradient fields, one function reached from three callers further out: at 36
// columns each row keeps the function and the caller's class and function that tells it apart.
TEST(TableNames, FarCallersAreShortenedAsNames) {
  const std::string head = "GeometricField<Tensor<double>, \u2026> in Foam::fv::gaussGrad::gradf (libfiniteVolume.so+0x1d3f5ef) "
                           "\u2190 \u2026 \u2190 ";
  const std::vector<std::string> labels = {head + "Foam::linearUpwind::correction (libfiniteVolume.so+0x17d8fdc)",
                                           head + "Foam::RASModels::kEpsilon::correct (libturb.so+0x1f5233)"};
  for (size_t width : {36u, 48u}) {
    const std::vector<std::string> cells = fit_column(labels, width);
    expect_fitted_and_distinct(labels, width, cells);
    for (const std::string& c : cells) EXPECT_NE(c.find("::gradf \u2190 \u2026 \u2190 "), std::string::npos) << c;
    EXPECT_NE(cells[1].find("kEpsilon::correct"), std::string::npos) << cells[1];
  }
  EXPECT_EQ(fit_column(labels, 48)[0], "gaussGrad::gradf \u2190 \u2026 \u2190 linearUpwind::correction");
  const LabelParts p = split_label(labels[0]);
  EXPECT_TRUE(p.far_caller);
  EXPECT_EQ(p.caller, "Foam::linearUpwind::correction (libfiniteVolume.so+0x17d8fdc)");
}

TEST(TableNames, TypePrefixGivesWayBeforeTheFunction) {
  const std::vector<std::string> cells = {"Field<double> in make_pressure (fields.cpp:80)",
                                          "Matrix<double, \u2026> in make_velocity (fields.cpp:76)"};
  EXPECT_EQ(fit_column(cells, 60), cells);
  EXPECT_EQ(fit_column(cells, 36)[0], "Field<double> in make_pressure (:80)");
  EXPECT_EQ(fit_column(cells, 24)[0], "make_pressure (:80)");
  EXPECT_EQ(without_namespaces("Foam::Field<double> in Foam::fv::grad"), "Field<double> in fv::grad");
}

}  // namespace
}  // namespace hpcl::analysis
