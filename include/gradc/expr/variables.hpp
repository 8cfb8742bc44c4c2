#pragma once
/// `gradc::variables<N>()`: N distinct input variables, for structured bindings:
/// `auto [x, mu, sigma] = gradc::variables<3>();`. A kernel compiled from them takes
/// N arguments, in this order.

#include <cstddef>
#include <tuple>
#include <utility>

#include <gradc/expr/nodes.hpp>

namespace gradc {

template <std::size_t N>
constexpr auto variables() {
    static_assert(N >= 1, "gradc::variables<N>(): N must be at least 1");
    return []<std::size_t... I>(std::index_sequence<I...>) {
        return std::tuple<expr::variable<I, N>...>{};
    }(std::make_index_sequence<N>{});
}

}  // namespace gradc
