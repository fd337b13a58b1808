// Shorter C++ names for table cells. A demangled name such as
//   LAMMPS_NS::PairLJCut<double, 3>::compute(int, int) (pair_lj_cut.cpp:120)
// spends most of its width on parameter lists and template arguments. Tables drop those where
// the rest still tells the rows apart; JSON and CSV keep full names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hpcl::analysis {

// "f(int, char*) const (a.cc:3)" -> "f (a.cc:3)"; "operator()(int)" -> "operator()"; the
// location suffix " (file:line)" and "(anonymous namespace)" are kept.
std::string drop_parameter_lists(std::string_view name);
// "std::vector<int, std::allocator<int> >::push_back" -> "std::vector::push_back"; the angle
// brackets of operator<, operator<< and operator<=> are kept.
std::string drop_template_arguments(std::string_view name);

// Applies drop_parameter_lists, then drop_template_arguments, to every name whose shortened form
// no other distinct name of `names` shares; names that would collide stay as they are.
void simplify_names(std::vector<std::string>& names);

// A Python statement labelled by its source line, "u = np.zeros(n) (solver.py:12)" (heap_naming.h):
// its brackets are the program's own text, not a C++ parameter or template list, and its
// location is what identifies it.
bool python_statement_label(std::string_view label);

}  // namespace hpcl::analysis
