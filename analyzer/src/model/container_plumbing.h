// Container plumbing: the frames of a C++ code base that only make or grow a container, found by
// rule from demangled names and the allocation path, so that a heap variable is named by the first
// frame that *uses* the container and carries the container's type.
//
// OpenFOAM's fields are allocated by List<T>::doAlloc, called by List's constructor, called by
// Field's, DimensionedField's and GeometricField's constructors, called (perhaps through a New
// factory or a tmp<T> holder) by the function that wanted the field; Eigen's vectors by
// Eigen::internal::aligned_malloc under DenseStorage::resize, PlainObjectBase::resize and the
// Matrix constructor. Walking outward from the allocator, frame k is plumbing, given the frame just
// inside it (j, itself plumbing or the allocation call), when it is
//   - in a library-private namespace: a scope named internal, detail(s), impl or dtl, or one
//     starting with '_' (Eigen::internal, Kokkos::Impl, boost::container::dtl);
//   - a member of a class template and
//       * j is an allocation function and k is a constructor or a member that grows or
//         allocates by its name (resize, setSize, reserve, doAlloc: the class takes raw storage
//         itself), or
//       * j is in the private scope of k's code base (DenseStorage<..>::resize ->
//         Eigen::internal::conditional_aligned_new_auto), or
//       * j is a member of the same class template (List::List -> List::doAlloc), or
//       * j does the same operation under the same name (PlainObjectBase::resize ->
//         DenseStorage::resize), or
//       * k is a constructor and j is in the same top-level namespace (Field<T>::Field ->
//         List<T>::List: a container built on another), or
//       * j's class is among k's template arguments (tmp<GeometricField<..>>::New,
//         autoPtr<T>: a holder of the container).
// What is never plumbing: a function that is not a member of a class template (the caller that
// wanted the field), a class template's member that calls a container of another code base (a
// solver class template whose constructor fills a std::vector member is the vector's user), and a
// member that calls a container of its own code base under another name (gaussGrad<T>::calcGrad
// making a GeometricField). The standard library's frames are the allocator's (heap_naming.h).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "symbols/location.h"

namespace hpcl::analysis {

// The index of the first frame at or outward of `first` (innermost first) that is not container
// plumbing given the frames inside it; `first` itself when it is not; path.size() when every frame
// from `first` outward is.
size_t skip_container_plumbing(const std::vector<Location>& path, size_t first);

// The container a variable named by `path[named]` was made as: the class of the outermost
// plumbing constructor inside it, with its template arguments ("Foam::GeometricField<double,
// Foam::fvPatchField, Foam::volMesh>", "Eigen::Matrix<double, -1, 1, 0, -1, 1>"); else the class
// of the outermost plumbing member of a class template; "" when no plumbing frame lies inside it.
std::string plumbing_container(const std::vector<Location>& path, size_t named);

// Whether `function` (demangled) is in a library-private scope (the first rule above).
bool in_private_scope(std::string_view function);
// Whether a frame is of a kind that can be plumbing at all: in a private scope or a member of a
// class template (JSON marks such frames skipped for naming, as it marks wrappers).
bool may_be_plumbing(const Location& loc);

}  // namespace hpcl::analysis
