#pragma once
/// \file
/// What `Tensor::item()` returns (LibTorch's `c10::Scalar`, reduced to that use): a
/// double, an int64, a bool or a complex<double>, by the tensor's dtype, read with
/// `to<T>()` or LibTorch's `toDouble()`, `toFloat()`, `toLong()`, `toInt()`, `toBool()`,
/// `toComplexDouble()`. A complex value with a non-zero imaginary part read as a real
/// type throws, as LibTorch's checked conversion does.

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>

#include <gradc/error.hpp>

namespace gradc {

/// A number of one of LibTorch's scalar kinds (double, int64, bool, complex), as
/// c10::Scalar: what `Tensor::item()` returns (`loss.item().toDouble()`).
class Scalar {
public:
    /// Which kind of number it holds.
    enum class Kind { Double, Long, Bool, ComplexDouble };

    /// @{
    /// A Scalar of the argument's kind.
    Scalar(double v) : value_(v), kind_(Kind::Double) {}
    Scalar(std::int64_t v) : value_(static_cast<double>(v)), long_(v), kind_(Kind::Long) {}
    Scalar(bool v) : value_(v ? 1.0 : 0.0), long_(v ? 1 : 0), kind_(Kind::Bool) {}
    Scalar(std::complex<double> v) : value_(v), kind_(Kind::ComplexDouble) {}

    /// @}
    /// @{
    /// Whether it holds a double, an integer (or a bool, with `include_bool`), a bool, a complex number.
    bool isFloatingPoint() const { return kind_ == Kind::Double; }
    bool isIntegral(bool include_bool) const { return kind_ == Kind::Long || (include_bool && isBoolean()); }
    bool isBoolean() const { return kind_ == Kind::Bool; }
    bool isComplex() const { return kind_ == Kind::ComplexDouble; }

    /// @}
    /// The value as T; throws a gradc::Error for a complex value with an imaginary part read as a real type.
    template <class T>
    T to() const {
        if constexpr (std::is_same_v<T, std::complex<double>> || std::is_same_v<T, std::complex<float>>) {
            return T(value_);
        } else {
            if (value_.imag() != 0)
                throw Error("gradc: Scalar::to<T>(): value (" + std::to_string(value_.real()) + ", " +
                            std::to_string(value_.imag()) + "i) cannot be converted to a real type without "
                            "losing its imaginary part; read it with toComplexDouble()");
            if constexpr (std::is_same_v<T, bool>) {
                return value_.real() != 0;
            } else if constexpr (std::is_integral_v<T>) {
                // An int64 keeps all its digits (a double has 53 bits).
                return kind_ == Kind::Long || kind_ == Kind::Bool ? static_cast<T>(long_) : static_cast<T>(value_.real());
            } else {
                return static_cast<T>(value_.real());
            }
        }
    }
    /// @{
    /// to<double>(), to<float>(), to<int64_t>(), to<int>(), to<bool>(), to<complex<double>>().
    double toDouble() const { return to<double>(); }
    float toFloat() const { return to<float>(); }
    std::int64_t toLong() const { return to<std::int64_t>(); }
    int toInt() const { return to<int>(); }
    bool toBool() const { return to<bool>(); }
    std::complex<double> toComplexDouble() const { return value_; }
    /// @}
    /// The kind of number held.
    Kind kind() const { return kind_; }

private:
    std::complex<double> value_;
    std::int64_t long_ = 0;
    Kind kind_;
};

}  // namespace gradc
