#pragma once
// The prologue of the tests written as LibTorch code ported by renaming `torch::` to
// `gradc::` (test_libtorch_conformance.cpp, test_libtorch_porting.cpp). They run under
// LibTorch's default dtype, float32 (the [libtorch] tag; tests/support/float64_default.cpp),
// as PyTorch did for their reference values.
#include <string>

#include <gradc/torch.hpp>

#include "support.hpp"

namespace torch = gradc;  // the porting recipe of docs/dynamic.md

namespace libtorch_style {

using namespace testing;
using Catch::Matchers::Contains;
using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::Function;
using torch::autograd::tensor_list;

/// A float32 result against PyTorch's float32 value.
inline auto matches_float(const std::string& name) { return matches(name, 1e-6, 1e-6); }

inline double ref_scalar(const std::string& name) { return expected(name).at(0); }

}  // namespace libtorch_style
