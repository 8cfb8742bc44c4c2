#pragma once
/// \file
/// Run-time architecture dispatch: one binary that runs SSE2, AVX2 or AVX-512 batch code,
/// chosen on the CPU it runs on (the `portable` Meson option, -DGRADC_PORTABLE=1).
///
/// A C++ compiler generates AVX2 or AVX-512 code for xsimd's templates only in a
/// translation unit compiled with those instructions enabled (-mavx2 -mfma, -mavx512f
/// ...): xsimd selects its kernels by the preprocessor. Header-only templates therefore
/// cannot dispatch by themselves; the pattern (xsimd's own) is one small translation unit
/// per architecture, each compiling the same batch call for its architecture, and a
/// dispatcher in the portable code:
///
///     // my_kernel.hpp: seen by every translation unit
///     struct loglik_gradient {
///         template <class Arch>
///         void operator()(Arch, std::span<const double> x, std::span<double> v,
///                         std::span<double> g) const;    // declared only
///     };
///     // my_kernel_impl.hpp: the definition, included by the per-arch files only
///     template <class Arch>
///     void loglik_gradient::operator()(Arch a, ...) const { kernel().gradient_batch(..., a); }
///     // my_kernel_avx2.cpp, compiled with -mavx2 -mfma (and _sse2.cpp, _avx512.cpp):
///     #include "my_kernel_impl.hpp"
///     template void loglik_gradient::operator()(xsimd::avx2, std::span<const double>, ...) const;
///     // anywhere, compiled for the baseline (SSE2):
///     gradc::simd::dispatch(loglik_gradient{}, x, v, g);  // AVX-512 where the CPU has it
///
/// Flags per file: `gradc::simd::arch_flags` below; in Meson, one static_library per
/// architecture with those cpp_args (tests/simd/meson.build does this). Put the baseline
/// objects first on the link line: inline functions that do not depend on the
/// architecture (std::, span checks) are emitted in every file, and the linker keeps the
/// first copy, which must be the baseline one. Exceptions (gradc::Error from the
/// argument checks) pass through `dispatch`.

#include <cstdint>
#include <type_traits>
#include <utility>

#include <gradc/simd/config.hpp>

namespace gradc::simd {

/// The architectures a portable build chooses among, widest first.
using dispatch_archs = xsimd::arch_list<xsimd::avx512bw, xsimd::avx2, xsimd::sse2>;

/// The compiler flags a per-architecture translation unit needs (GCC and Clang).
///   sse2:     (none on x86-64)
///   avx2:     -mavx2 -mfma
///   avx512bw: -mavx512f -mavx512cd -mavx512dq -mavx512bw -mavx2 -mfma

namespace detail {

#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64)
/// The operating system saves these register states (XCR0): AVX needs XMM|YMM (0x6),
/// AVX-512 also opmask and ZMM (0xe0). xsimd 8.1's cpuid check does not look at XCR0.
inline std::uint64_t os_saved_state() noexcept {
    static const std::uint64_t xcr0 = [] {
        unsigned a, b, c, d;
        __asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
        if (!(c >> 27 & 1)) return std::uint64_t{0};  // no OSXSAVE: no XGETBV
        unsigned lo, hi;
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        return (std::uint64_t(hi) << 32) | lo;
    }();
    return xcr0;
}
#else
inline std::uint64_t os_saved_state() noexcept { return 0; }
#endif

}  // namespace detail

/// Whether this CPU (and operating system) runs code for architecture A.
template <class A>
bool runs_on_this_cpu() noexcept {
    const auto cpu = xsimd::available_architectures();
    const std::uint64_t os = detail::os_saved_state();
    if constexpr (std::is_same_v<A, xsimd::sse2>) {
        return cpu.sse2;
    } else if constexpr (std::is_same_v<A, xsimd::avx2>) {
        return cpu.avx2 && cpu.fma3_avx2 && (os & 0x6) == 0x6;
    } else if constexpr (std::is_same_v<A, xsimd::avx512bw>) {
        return cpu.avx512f && cpu.avx512cd && cpu.avx512dq && cpu.avx512bw && cpu.avx2 && cpu.fma3_avx2 &&
               (os & 0xe6) == 0xe6;
    } else {
        static_assert(!sizeof(A), "gradc::simd::runs_on_this_cpu: not one of dispatch_archs");
    }
}

namespace detail {
template <class F, class... Args>
decltype(auto) walk_archs(xsimd::arch_list<>, F&&, Args&&...) {
    static_assert(sizeof...(Args) < 0, "unreachable");
}
template <class A, class... More, class F, class... Args>
decltype(auto) walk_archs(xsimd::arch_list<A, More...>, F&& f, Args&&... args) {
    if constexpr (sizeof...(More) == 0) {
        return std::forward<F>(f)(A{}, std::forward<Args>(args)...);
    } else {
        if (runs_on_this_cpu<A>()) return std::forward<F>(f)(A{}, std::forward<Args>(args)...);
        return walk_archs(xsimd::arch_list<More...>{}, std::forward<F>(f), std::forward<Args>(args)...);
    }
}
}  // namespace detail

/// The widest architecture of `Archs` this CPU runs (the last one of the list otherwise).
template <class Archs = dispatch_archs>
const char* chosen_arch_name() noexcept {
    return detail::walk_archs(Archs{}, []<class A>(A) { return A::name(); });
}

/// Calls `f(A{}, args...)` for the widest architecture A of `Archs` that this CPU runs
/// (widest first; the last one is the fallback). Unlike xsimd::dispatch it lets
/// exceptions through. `f`'s call operator for each A is normally defined in a
/// translation unit compiled for A (see the top of this file).
template <class Archs = dispatch_archs, class F, class... Args>
decltype(auto) dispatch(F&& f, Args&&... args) {
    return detail::walk_archs(Archs{}, std::forward<F>(f), std::forward<Args>(args)...);
}

}  // namespace gradc::simd
