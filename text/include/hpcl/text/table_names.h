// Names in a table column, shortened to the column's width so that rows that differ still look
// different. A label such as
//   LAMMPS_NS::AtomVec::grow (liblammps.so.0+0x290efa) ← LAMMPS_NS::AtomVec::unpack_border (...)
// is cut in this order, each step only where the cell does not fit: the caller's location, the
// caller, an OpenMP region suffix (" [omp region 0]"), the namespaces before Class::function, the
// location down to what varies (":41", "+0x290efa"), the location; then the name is cut in the
// middle. Cells that would then read alike while their labels differ get back, each, the part
// that tells them apart (the line or offset, the caller, the namespace) and, failing that, the
// differing characters around an ellipsis; a number (" [2]") is the last resort.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hpcl::analysis {

// The parts of a table label: NAME[ [omp region N]][ (WHERE)][ ← CALLER][ #N].
struct LabelParts {
  std::string name;    // "LAMMPS_NS::AtomVec::grow"
  std::string region;  // " [omp region 0]" or ""
  std::string where;   // "heat2d.c:85", "liblammps.so.0+0x290efa", "liblammps.so.0" or ""
  std::string caller;  // the label after " ← " or " ← … ← " (its own parts are not split), or ""
  bool far_caller = false;  // " ← … ← ": a caller further out than the next frame
  std::string number;  // " #2" or ""
};
LabelParts split_label(std::string_view label);

// "Class::function" of a qualified name (the last two scope components), the name itself when it
// has fewer: "LAMMPS_NS::AtomVec::grow" -> "AtomVec::grow"; a "TYPE in " prefix keeps its class
// alone: "Foam::Field<double> in Foam::fv::grad" -> "Field<double> in fv::grad".
std::string without_namespaces(std::string_view name);
// What of a location varies between sites of one program: "heat2d.c:85" -> ":85",
// "liblammps.so.0+0x290efa" -> "+0x290efa", "a.c, lib.so+0x10" -> "+0x10", a stack variable's
// "local of ns::kernel, k.c:14" -> "local of kernel" ("private, main [omp region 0], k.c:9" ->
// "private, main"); "" for a module alone.
std::string varying_part(std::string_view where);

// The cells of one column, each at most `width` columns wide (display width), distinct where the
// input cells are distinct whenever the width allows it.
std::vector<std::string> fit_column(const std::vector<std::string>& cells, size_t width);

}  // namespace hpcl::analysis
