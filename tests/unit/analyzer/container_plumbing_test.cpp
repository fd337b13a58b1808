// Container plumbing (model/container_plumbing.h): which frames of an allocation path only make or
// grow a container, on the paths of OpenFOAM, Eigen, the standard library and code that merely
// uses containers; and the container type a variable is then labelled with.
#include <gtest/gtest.h>

#include "model/container_plumbing.h"
#include "model/heap_naming.h"

namespace hpcl::analysis {
namespace {

Location frame(const char* function, const char* file = "/src/app.C", uint32_t line = 10,
               const char* module = "/opt/app/lib/libapp.so") {
  Location l;
  l.function = function;
  l.file = file;
  l.line = line;
  l.module = module;
  l.has_address = true;
  return l;
}

// OpenFOAM's gradient: List<T>::doAlloc under List's, Field's, DimensionedField's and
// GeometricField's constructors, under gaussGrad<T>::calcGrad, under kEpsilon::correct.
std::vector<Location> openfoam_grad_path() {
  const char* field = "Foam::GeometricField<Foam::Tensor<double>, Foam::fvPatchField, Foam::volMesh>";
  static const std::string ctor = std::string(field) + "::GeometricField(Foam::IOobject const&, Foam::fvMesh const&)";
  return {frame("operator new[](unsigned long)", "", 0, "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"),
          frame("Foam::List<Foam::Tensor<double> >::doAlloc()", "List.H", 120),
          frame("Foam::List<Foam::Tensor<double> >::List(int)", "List.C", 40),
          frame("Foam::Field<Foam::Tensor<double> >::Field(int)", "Field.C", 60),
          frame("Foam::DimensionedField<Foam::Tensor<double>, Foam::volMesh>::DimensionedField(Foam::IOobject const&)",
                "DimensionedField.C", 80),
          frame(ctor.c_str(), "GeometricField.C", 300),
          frame("Foam::fv::gaussGrad<Foam::Vector<double> >::calcGrad(Foam::GeometricField<Foam::Vector<double>, "
                "Foam::fvPatchField, Foam::volMesh> const&, Foam::word const&)",
                "gaussGrad.C", 54),
          frame("Foam::RASModels::kEpsilon<Foam::IncompressibleTurbulenceModel<Foam::transportModel> >::correct()",
                "kEpsilon.C", 230)};
}

TEST(ContainerPlumbing, OpenFoamFieldIsNamedByTheFunctionThatWantedIt) {
  const std::vector<Location> all = openfoam_grad_path();
  const std::vector<Location> path(all.begin() + 1, all.end());  // without the allocation call
  const size_t named = heap_site_frame(path);
  ASSERT_EQ(named, 5u) << path[named].function.str();
  EXPECT_EQ(plumbing_container(path, named),
            "Foam::GeometricField<Foam::Tensor<double>, Foam::fvPatchField, Foam::volMesh>");
  EXPECT_EQ(heap_site_context_label(path, named),
            "Foam::GeometricField<Foam::Tensor<double>, Foam::fvPatchField, Foam::volMesh> in " +
                std::string(path[5].function) + " (gaussGrad.C:54)");
}

TEST(ContainerPlumbing, HoldersAndFactoriesOfTheContainerArePlumbingToo) {
  // tmp<T>::New(args) -> new T(args), and GeometricField::New -> its constructor.
  std::vector<Location> path = {
      frame("Foam::List<double>::doAlloc()", "List.H", 120), frame("Foam::List<double>::List(int)", "List.C", 40),
      frame("Foam::Field<double>::Field(int)", "Field.C", 60),
      frame("Foam::GeometricField<double, Foam::fvPatchField, Foam::volMesh>::GeometricField(Foam::IOobject const&)",
            "GeometricField.C", 300),
      frame("Foam::tmp<Foam::GeometricField<double, Foam::fvPatchField, Foam::volMesh> > "
            "Foam::tmp<Foam::GeometricField<double, Foam::fvPatchField, Foam::volMesh> >::New<Foam::IOobject>(Foam::IOobject&&)",
            "tmpI.H", 70),
      frame("Foam::linearUpwind<double>::correction(Foam::GeometricField<double, Foam::fvPatchField, Foam::volMesh> const&) const",
            "linearUpwind.C", 90)};
  EXPECT_EQ(heap_site_frame(path), 5u);
  EXPECT_EQ(plumbing_container(path, 5), "Foam::GeometricField<double, Foam::fvPatchField, Foam::volMesh>");
  std::vector<Location> factory = path;
  factory[4] = frame("Foam::GeometricField<double, Foam::fvPatchField, Foam::volMesh>::New(Foam::word const&)",
                     "GeometricField.C", 400);
  EXPECT_EQ(heap_site_frame(factory), 5u);
}

TEST(ContainerPlumbing, EigenInternalsAndResizeChainsArePassed) {
  const char* plain = "Eigen::PlainObjectBase<Eigen::Matrix<double, -1, 1, 0, -1, 1> >";
  const std::string resize = std::string(plain) + "::resize(long, long)";
  const std::string ctor = std::string(plain) + "::PlainObjectBase<Eigen::CwiseNullaryOp<X> >(Eigen::DenseBase<Y> const&)";
  std::vector<Location> path = {
      frame("Eigen::internal::aligned_malloc(unsigned long)", "Memory.h", 182),
      frame("double* Eigen::internal::conditional_aligned_new_auto<double, true>(unsigned long)", "Memory.h", 404),
      frame("Eigen::DenseStorage<double, -1, -1, 1, 0>::resize(long, long, long)", "DenseStorage.h", 639),
      frame(resize.c_str(), "PlainObjectBase.h", 285),
      frame(ctor.c_str(), "PlainObjectBase.h", 593),
      frame("Eigen::Matrix<double, -1, 1, 0, -1, 1>::Matrix<Eigen::CwiseNullaryOp<X> >(Z const&)", "Matrix.h", 423),
      frame("make_velocity(unsigned long)", "fields.cpp", 76), frame("main", "fields.cpp", 89)};
  ASSERT_EQ(heap_site_frame(path), 6u);
  EXPECT_EQ(plumbing_container(path, 6), "Eigen::Matrix<double, -1, 1, 0, -1, 1>");
  // Called from the program's own resize, the chain stops there: its caller's namespace differs.
  std::vector<Location> user = {path[0], path[1], path[2], path[3], frame("Solver::grow(long)", "solver.cpp", 12),
                                frame("main", "solver.cpp", 40)};
  EXPECT_EQ(heap_site_frame(user), 4u);
}

TEST(ContainerPlumbing, UsersOfContainersKeepTheirNames) {
  // A class template of the program whose constructor fills a std::vector member: the vector's
  // user, not a container.
  std::vector<Location> solver = {
      frame("std::vector<double, std::allocator<double> >::vector(unsigned long)", "/usr/include/c++/12/bits/stl_vector.h", 566),
      frame("cfd::Solver<double>::Solver(unsigned long)", "solver.cpp", 58), frame("main", "solver.cpp", 91)};
  EXPECT_EQ(heap_site_frame(solver), 1u);
  EXPECT_EQ(plumbing_container(solver, 1), "");
  // A member of a class template that news raw storage under a name that neither allocates nor
  // grows (setup) is the program's code.
  std::vector<Location> setup = {frame("cfd::Solver<double>::setup()", "solver.cpp", 70), frame("main", "solver.cpp", 92)};
  EXPECT_EQ(heap_site_frame(setup), 0u);
  // A function template that is no member, and a member of a class that is no template.
  std::vector<Location> plain = {frame("cfd::Grid::allocate(int)", "grid.cpp", 5), frame("main", "grid.cpp", 9)};
  EXPECT_EQ(skip_container_plumbing(plain, 0), 0u);
  // A member that makes a container of its own code base under another name (calcGrad making a
  // GeometricField) is where the field is made.
  EXPECT_EQ(skip_container_plumbing(openfoam_grad_path(), 1), 6u);
}

TEST(ContainerPlumbing, PrivateScopes) {
  EXPECT_TRUE(in_private_scope("Eigen::internal::aligned_malloc(unsigned long)"));
  EXPECT_TRUE(in_private_scope("Kokkos::Impl::SharedAllocationRecord<void, void>::allocate_tracked(unsigned long)"));
  EXPECT_TRUE(in_private_scope("boost::container::dtl::insert_range_proxy<A>::uninitialized_copy_n_and_update(B)"));
  EXPECT_TRUE(in_private_scope("lib::__impl::grow(int)"));
  EXPECT_FALSE(in_private_scope("(anonymous namespace)::make(int)"));
  EXPECT_FALSE(in_private_scope("internal(int)"));  // a function so named, in no scope
  EXPECT_FALSE(in_private_scope("Foam::List<double>::doAlloc()"));
}

TEST(ContainerPlumbing, ASiteKnownByItsAddressNamesTheCallerPastThePlumbing) {
  // OpenFOAM's List<int> grown by a static helper without a symbol, under IOList's constructor,
  // under polyMesh's.
  Location helper = frame("libfiniteVolume.so!0x98f5b0", "", 0, "/usr/lib/openfoam/libfiniteVolume.so");
  helper.unnamed_function = true;
  helper.offset = 0x98fa7f;
  helper.function_start = 0x98f5b0;
  std::vector<Location> path = {frame("Foam::List<int>::doResize(int)", "", 0),
                                helper,
                                frame("Foam::IOList<int>::IOList(Foam::IOobject const&)", "", 0),
                                frame("Foam::polyMesh::polyMesh(Foam::IOobject const&)", "", 0),
                                frame("main", "simpleFoam.C", 40)};
  ASSERT_EQ(heap_site_frame(path), 1u);
  const std::string label = heap_site_context_label(path, 1);
  EXPECT_TRUE(label.starts_with("Foam::List<int> in Foam::polyMesh::polyMesh (")) << label;
}

TEST(ContainerPlumbing, AnEntirePathOfPlumbingKeepsItsFirstFrame) {
  // Nothing outward uses the container (a static constructor's path, cut short): the first frame
  // that is not a library's names it, as before.
  std::vector<Location> path = {frame("Foam::List<double>::doAlloc()", "List.H", 120),
                                frame("Foam::List<double>::List(int)", "List.C", 40)};
  EXPECT_EQ(heap_site_frame(path), 0u);
}

}  // namespace
}  // namespace hpcl::analysis
