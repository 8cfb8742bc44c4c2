#pragma once
/// \file
/// Which variables of a compiled kernel are in `wrt(...)` and which are data: the split
/// that map-reduce (the data vary per point) and the Ceres adapters (the data are fixed
/// per residual block) both read.

#include <array>
#include <cstddef>

namespace gradc::lower {

/// For each variable of `Kernel` (a kernel with `arity`, `wrt_count` and
/// `wrt_variables`), whether it is one of the wrt variables.
template <class Kernel>
inline constexpr std::array<bool, Kernel::arity> is_wrt_variable = [] {
    std::array<bool, Kernel::arity> p{};
    for (std::size_t j = 0; j < Kernel::wrt_count; ++j) p[Kernel::wrt_variables[j]] = true;
    return p;
}();

/// The variables of `Kernel` that are not in wrt(...), in variable order.
template <class Kernel>
inline constexpr std::array<std::size_t, Kernel::arity - Kernel::wrt_count> data_variables = [] {
    std::array<std::size_t, Kernel::arity - Kernel::wrt_count> d{};
    std::size_t at = 0;
    for (std::size_t v = 0; v < Kernel::arity; ++v)
        if (!is_wrt_variable<Kernel>[v]) d[at++] = v;
    return d;
}();

}  // namespace gradc::lower
