#pragma once
// Element conversions between the dtypes: complex to real keeps the real part (as a
// reinterpretation that NumPy and PyTorch also perform, with a warning there).

#include <complex>
#include <type_traits>

namespace gradc::kernels {

template <class T>
struct is_complex_t : std::false_type {};
template <class T>
struct is_complex_t<std::complex<T>> : std::true_type {};
template <class T>
inline constexpr bool is_complex_v = is_complex_t<T>::value;

template <class T>
struct real_of {
    using type = T;
};
template <class T>
struct real_of<std::complex<T>> {
    using type = T;
};
template <class T>
using real_of_t = typename real_of<T>::type;

template <class To, class From>
constexpr To convert_value(const From& v) {
    if constexpr (std::is_same_v<To, From>) {
        return v;
    } else if constexpr (is_complex_v<To>) {
        using R = typename To::value_type;
        if constexpr (is_complex_v<From>)
            return To(static_cast<R>(v.real()), static_cast<R>(v.imag()));
        else
            return To(static_cast<R>(v), R(0));
    } else if constexpr (is_complex_v<From>) {
        if constexpr (std::is_same_v<To, bool>)
            return v != From(0);
        else
            return static_cast<To>(v.real());
    } else if constexpr (std::is_same_v<To, bool>) {
        return v != From(0);
    } else {
        return static_cast<To>(v);
    }
}

}  // namespace gradc::kernels
