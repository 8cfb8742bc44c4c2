// What particle and saddle share: the two modes a nested derivative can take, and points
// of two doubles as double tensors of the dynamic mode and back.
#pragma once

#include "tensor_json.hpp"

#include <array>

namespace gradbench::nested {

/// The mode of a derivative; a function's name gives the outer one, then the inner one
/// (GradBench's particle and saddle READMEs: rr, ff, fr, rf).
enum class Mode { forward, reverse };

/// The two elements of a 1-d double tensor of length 2.
inline std::array<double, 2> values2(const gradc::Tensor& t) {
  const double* data = t.data_ptr<double>();
  return {data[0], data[1]};
}

/// A 1-d double tensor of two elements.
inline gradc::Tensor tensor2(const std::array<double, 2>& values) {
  gradc::Tensor t = gradc::empty(2, doubles());
  double* data = t.data_ptr<double>();
  data[0] = values[0];
  data[1] = values[1];
  return t;
}

}  // namespace gradbench::nested
