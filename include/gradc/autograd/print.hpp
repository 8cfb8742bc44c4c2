#pragma once
/// \file
/// Printing tensors, sizes and dtypes as LibTorch prints them.

#include <iosfwd>
#include <string>

#include <gradc/autograd/tensor.hpp>

namespace gradc {

/// LibTorch's printing: the values (one row per line for 1-D and 2-D, blocks `(i,.,.)`
/// above) followed by `[ CPUDoubleType{2,3} ]`.
std::ostream& operator<<(std::ostream& os, const Tensor& t);
/// The same text as `operator<<`.
std::string to_string(const Tensor& t);
/// `std::cout << t.sizes()` and `<< t.dtype()` print as in LibTorch: `[2, 3]`, `double`
/// (the names of LibTorch's TypeMeta: float, double, c10::complex<double>, bool, long int).
std::ostream& operator<<(std::ostream& os, const Shape& sizes);
std::ostream& operator<<(std::ostream& os, ScalarType t);  ///< Writes LibTorch's name of the dtype.

}  // namespace gradc
