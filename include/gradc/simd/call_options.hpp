#pragma once
/// \file
/// The optional last argument of every batch call: an xsimd architecture (`xsimd::avx2{}`),
/// a thread count (`gradc::threads{4}`), or both (`gradc::threads{4, xsimd::avx2{}}`).
/// Without it: the widest architecture the compiler targets, and gradc::get_num_threads().

#include <type_traits>

#include <gradc/parallel/threads.hpp>
#include <gradc/simd/config.hpp>

namespace gradc::simd {

namespace detail {
template <class O>
struct option_traits {
    static constexpr bool valid = architecture<O>;
    using arch = O;
    static int threads(const O&) { return get_num_threads(); }
};
template <>
struct option_traits<gradc::threads<void>> {
    static constexpr bool valid = true;
    using arch = default_arch;
    static int threads(const gradc::threads<void>& t) { return t.count; }
};
template <class A>
struct option_traits<gradc::threads<A>> {
    static constexpr bool valid = architecture<A>;
    using arch = A;
    static int threads(const gradc::threads<A>& t) { return t.count; }
};
}  // namespace detail

/// An architecture tag, `gradc::threads{n}`, or `gradc::threads{n, arch}`.
template <class O>
concept call_option = detail::option_traits<O>::valid;

/// The architecture a call option names.
template <call_option O>
using arch_of = typename detail::option_traits<O>::arch;

/// The threads a call option asks for.
template <call_option O>
int threads_of(const O& o) {
    return detail::option_traits<O>::threads(o);
}

}  // namespace gradc::simd
