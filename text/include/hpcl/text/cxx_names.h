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

// What a reader of C++ needs no more of: a function template's return type, "(anonymous
// namespace)::" and ABI tags ("[abi:cxx11]") go, and "> >" closes as ">>".
std::string tidy_cxx_name(std::string_view name);
// Template argument lists cut to their first argument without its namespaces, the others an
// ellipsis: "Foam::GeometricField<Foam::Tensor<double>, Foam::fvPatchField, Foam::volMesh>"
// -> "Foam::GeometricField<Tensor<double>, …>"; "Eigen::Matrix<double, -1, 1>" ->
// "Eigen::Matrix<double, …>".
std::string brief_template_arguments(std::string_view name);

// The end of the type or call a label starts with, "TYPE in FUNCTION (...)" (a container made
// through plumbing, a runtime library's call: heap_naming.h), or npos: the text before the
// first " in " outside brackets, when it has no space outside brackets itself.
size_t type_prefix_end(std::string_view label);

// Applies tidy_cxx_name, drop_parameter_lists, brief_template_arguments and then
// drop_template_arguments (to the function only, not to a "TYPE in" prefix, whose arguments say
// what it holds), each step to every name whose shortened form no other distinct name of `names`
// shares; names that would collide stay as they are.
void simplify_names(std::vector<std::string>& names);

// A Python statement labelled by its source line, "u = np.zeros(n) (solver.py:12)" (heap_naming.h):
// its brackets are the program's own text, not a C++ parameter or template list, and its
// location is what identifies it.
bool python_statement_label(std::string_view label);

// The qualified name of a demangled function, without return type, parameters or qualifiers:
// "void std::vector<int>::_M_realloc_insert<int>(...)"
//   -> "std::vector<int>::_M_realloc_insert<int>".
std::string_view qualified_name(std::string_view demangled);
// The qualified name without template arguments:
// "std::vector<int>::push_back(int const&)" -> "std::vector::push_back".
std::string qualified_base_name(std::string_view demangled);

// Position of the last "::" outside <...> and (...) of a demangled name, or npos:
// "std::vector<a::b>::push_back(c::d)" -> the "::" before "push_back".
size_t last_scope(std::string_view name);

}  // namespace hpcl::analysis
