#pragma once
/// \file
/// Element types of dynamic-mode tensors, named as in LibTorch (`gradc::kFloat64`, ...).
/// Only floating and complex tensors take part in differentiation; `kBool` holds the
/// results of comparisons and `kInt64` holds indices.

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include <gradc/error.hpp>

namespace gradc {

/// A tensor's element type, as LibTorch's c10::ScalarType.
enum class ScalarType : std::int8_t { Bool, Int64, Float32, Float64, ComplexFloat, ComplexDouble };

/// LibTorch's constants for the dtypes, with both of its names where it has two
/// (kFloat32 = kFloat, kFloat64 = kDouble, kInt64 = kLong, kComplex64 = kComplexFloat, ...).
/// @{
inline constexpr ScalarType kBool = ScalarType::Bool;
inline constexpr ScalarType kInt64 = ScalarType::Int64;
inline constexpr ScalarType kLong = ScalarType::Int64;
inline constexpr ScalarType kFloat32 = ScalarType::Float32;
inline constexpr ScalarType kFloat = ScalarType::Float32;
inline constexpr ScalarType kFloat64 = ScalarType::Float64;
inline constexpr ScalarType kDouble = ScalarType::Float64;
inline constexpr ScalarType kComplex64 = ScalarType::ComplexFloat;
inline constexpr ScalarType kComplexFloat = ScalarType::ComplexFloat;
inline constexpr ScalarType kComplex128 = ScalarType::ComplexDouble;
inline constexpr ScalarType kComplexDouble = ScalarType::ComplexDouble;

/// @}
/// LibTorch's spelling of the type name: "Float", "Double", "ComplexFloat", ...
std::string_view to_string(ScalarType t);
/// Bytes per element.
std::size_t element_size(ScalarType t);

/// Whether complex64 or complex128.
constexpr bool is_complex(ScalarType t) {
    return t == kComplex64 || t == kComplex128;
}
/// Whether float32 or float64.
constexpr bool is_floating_point(ScalarType t) {
    return t == kFloat32 || t == kFloat64;
}
/// Floating or complex: the types a gradient can flow through.
constexpr bool is_differentiable_type(ScalarType t) {
    return is_floating_point(t) || is_complex(t);
}

/// The type of `a op b`: bool < int64 < float32 < float64, and complex when either is
/// complex, with the precision of the wider one (float64 ⊕ complex64 = complex128).
ScalarType promote_types(ScalarType a, ScalarType b);
/// float32 for complex64, float64 for complex128, the type itself otherwise.
ScalarType to_real_type(ScalarType t);
/// complex64 for float32, complex128 for float64, the type itself for complex types.
ScalarType to_complex_type(ScalarType t);

/// The dtype of floating tensors made without a dtype in their options (`tensor({1.0})`,
/// `ones`, `randn`, ...): float32 at start, as in LibTorch and PyTorch. One setting for the
/// whole process, like `torch.set_default_dtype`. Complex factories use its complex
/// counterpart (complex64 for float32).
ScalarType get_default_dtype();
/// Only kFloat32 and kFloat64 may be the default (a gradc::Error otherwise, and the
/// default stays as it was).
void set_default_dtype(ScalarType t);
/// Sets the default dtype for a scope and restores the previous one at its end.
class DefaultDtypeGuard {
public:
    explicit DefaultDtypeGuard(ScalarType t) : previous_(get_default_dtype()) { set_default_dtype(t); }  ///< Sets `t`.
    ~DefaultDtypeGuard() { set_default_dtype(previous_); }
    DefaultDtypeGuard(const DefaultDtypeGuard&) = delete;
    DefaultDtypeGuard& operator=(const DefaultDtypeGuard&) = delete;

private:
    ScalarType previous_;
};

/// The C++ element type of a dtype, for `data_ptr<T>()` and `item<T>()` checks.
template <class T>
struct dtype_of;
// One specialisation per element type (bool, int64_t, float, double, the complex types).
/// \cond INTERNAL
template <> struct dtype_of<bool> { static constexpr ScalarType value = kBool; };
template <> struct dtype_of<std::int64_t> { static constexpr ScalarType value = kInt64; };
template <> struct dtype_of<float> { static constexpr ScalarType value = kFloat32; };
template <> struct dtype_of<double> { static constexpr ScalarType value = kFloat64; };
template <> struct dtype_of<std::complex<float>> { static constexpr ScalarType value = kComplex64; };
template <> struct dtype_of<std::complex<double>> { static constexpr ScalarType value = kComplex128; };
/// \endcond
/// The dtype of the C++ element type T.
template <class T>
inline constexpr ScalarType dtype_of_v = dtype_of<T>::value;

/// The C++ element type a `dispatch` callback receives (its member `type`).
template <class T>
struct type_tag {
    using type = T;  ///< The element type.
};

/// Calls `f(type_tag<T>{})` with the C++ element type of `t`: the one switch over dtypes
/// that every kernel goes through.
template <class F>
decltype(auto) dispatch(ScalarType t, F&& f) {
    switch (t) {
        case ScalarType::Bool: return std::forward<F>(f)(type_tag<bool>{});
        case ScalarType::Int64: return std::forward<F>(f)(type_tag<std::int64_t>{});
        case ScalarType::Float32: return std::forward<F>(f)(type_tag<float>{});
        case ScalarType::Float64: return std::forward<F>(f)(type_tag<double>{});
        case ScalarType::ComplexFloat: return std::forward<F>(f)(type_tag<std::complex<float>>{});
        case ScalarType::ComplexDouble: return std::forward<F>(f)(type_tag<std::complex<double>>{});
    }
    throw Error("gradc: invalid dtype");
}

/// Like `dispatch` but only for float32/float64/complex64/complex128; `op` names the
/// operation in the error for other types.
template <class F>
decltype(auto) dispatch_floating(ScalarType t, std::string_view op, F&& f) {
    switch (t) {
        case ScalarType::Float32: return std::forward<F>(f)(type_tag<float>{});
        case ScalarType::Float64: return std::forward<F>(f)(type_tag<double>{});
        case ScalarType::ComplexFloat: return std::forward<F>(f)(type_tag<std::complex<float>>{});
        case ScalarType::ComplexDouble: return std::forward<F>(f)(type_tag<std::complex<double>>{});
        default: break;
    }
    throw Error("gradc: " + std::string(op) + " expects a floating or complex tensor, got dtype " +
                std::string(to_string(t)));
}

}  // namespace gradc
