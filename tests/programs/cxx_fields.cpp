// A small C++ code built the way the big ones are (OpenFOAM, Eigen users): its arrays are made
// through layers of container code, and the report must name each by the function that made it.
//
//   - a Mesh whose constructor makes two std::vector members (`x`, `y`): named by the constructor
//     at each member's line;
//   - an Eigen vector made by a factory function (`make_velocity`): named by that function, not by
//     Eigen::internal::aligned_malloc or Eigen's Matrix constructor;
//   - a field class of this file in OpenFOAM's style: cfd::List<T> allocates its storage
//     (doAlloc), cfd::Field<T> is a List, Field<T>::New makes one (`make_pressure`): named
//     "cfd::Field<double> in make_pressure", not by List's or Field's constructor;
//   - a class template of the program's own, cfd::Solver<T>, whose constructor makes a std::vector
//     (`residual`): a user of containers, not a container, so named by that constructor.
//
// Each `// array: LABEL NAME` line makes one array, and the report must name it NAME (the part of
// its label before the location). Each array is read a known number of times per round
// (run_weighted); the program times the reads (HPCL_TEST_TIMING_FILE) and tests/e2e/cxx_fields.sh
// checks the shares against that time.
// Built at -O2 and at -O0: the container frames are inlined into the caller at -O2 (the report
// sees them as inline frames) and real calls at -O0.
#include <Eigen/Core>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "workload.h"

namespace cfd {

template <class T>
class List {
 public:
  explicit List(size_t n) : size_(n) { doAlloc(); }
  List(const List&) = delete;
  List& operator=(const List&) = delete;
  ~List() { delete[] v_; }
  T* data() { return v_; }
  size_t size() const { return size_; }

 private:
  void doAlloc() { v_ = new T[size_]; }  // the storage itself
  size_t size_;
  T* v_ = nullptr;
};

template <class T>
class Field : public List<T> {
 public:
  Field(size_t n, T value) : List<T>(n) {
    for (size_t i = 0; i < n; ++i) this->data()[i] = value;
  }
  static std::unique_ptr<Field> New(size_t n, T value) { return std::unique_ptr<Field>(new Field(n, value)); }
};

template <class T>
class Solver {
 public:
  explicit Solver(size_t n) : residual(n, T(5)) {}  // array: residual cfd::Solver<double>::Solver
  std::vector<T> residual;
};

}  // namespace cfd

namespace {

struct Mesh {
  explicit Mesh(size_t n)
      : x(n, 1.0),   // array: mesh.x Mesh::Mesh
        y(n, 2.0) {  // array: mesh.y Mesh::Mesh
  }
  std::vector<double> x;
  std::vector<double> y;
};

__attribute__((noinline)) Eigen::VectorXd make_velocity(size_t n) {
  return Eigen::VectorXd::Constant(static_cast<Eigen::Index>(n), 3.0);  // array: velocity Eigen::Matrix<double, -1, 1, 0, -1, 1> in make_velocity
}

__attribute__((noinline)) std::unique_ptr<cfd::Field<double>> make_pressure(size_t n) {
  return cfd::Field<double>::New(n, 4.0);  // array: pressure cfd::Field<double> in make_pressure
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = rounds_from_args(argc, argv, 60);
  const size_t n = TEST_ARRAY_DOUBLES;
  Mesh mesh(n);
  Eigen::VectorXd velocity = make_velocity(n);
  std::unique_ptr<cfd::Field<double>> pressure = make_pressure(n);
  cfd::Solver<double> solver(n);
  fill_array(mesh.x.data(), n, 1.0);
  fill_array(mesh.y.data(), n, 2.0);
  fill_array(velocity.data(), n, 3.0);
  fill_array(pressure->data(), n, 4.0);
  fill_array(solver.residual.data(), n, 5.0);
  const struct test_array arrays[] = {
      {"mesh.x", mesh.x.data(), 1},          {"mesh.y", mesh.y.data(), 2},
      {"velocity", velocity.data(), 3},      {"pressure", pressure->data(), 4},
      {"residual", solver.residual.data(), 2},
  };
  const double sum = run_weighted(arrays, 5, rounds);
  std::printf("cxx_fields: %.6e\n", sum);
  return 0;
}
