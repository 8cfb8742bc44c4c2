#pragma once
/// \file
/// Making variables, for structured bindings:
///  - `auto [x, mu, sigma] = gradc::variables<3>();`: N scalar variables; a kernel
///    compiled from them takes N numbers (or a std::array<T, N>) and its gradient is a
///    std::array;
///  - `auto [W, b, x] = gradc::variables(gradc::mat<4, 3>, gradc::vec<4>, gradc::vec<3>);`:
///    variables of fixed shapes; a kernel takes one argument per shape (a std::array of
///    R·C values, row-major, a std::span or an Eigen fixed-size matrix) and its gradient
///    is a std::tuple with one entry per wrt variable.
/// Each call makes distinct variables, even two calls of the same form: the defaulted
/// `Tag` is a closure type, and every call names a new one. Mixing the variables of two
/// calls in one kernel is a compile-time error.

#include <cstddef>
#include <tuple>
#include <utility>

#include <gradc/expr/nodes.hpp>
#include <gradc/expr/shape.hpp>

namespace gradc {

/// `auto [x, y] = gradc::variables<2>();`: N scalar variables of one set (a kernel takes
/// one number per variable, in order). Each call makes a distinct set; mixing variables of
/// two calls in one kernel does not compile (docs/static.md).
template <std::size_t N, class Tag = decltype([] {})>
constexpr auto variables() {
    static_assert(N >= 1, "gradc::variables<N>(): N must be at least 1");
    return []<std::size_t... I>(std::index_sequence<I...>) {
        return std::tuple<expr::variable<I, N, Tag>...>{};
    }(std::make_index_sequence<N>{});
}

/// `auto [W, b] = gradc::variables(gradc::mat<4, 3>, gradc::vec<4>);`: one variable per
/// shape (scalar, vec<N>, mat<R, C>), of one set (docs/static.md, "Arrays").
template <class Tag = decltype([] {}), expr::dims... Shapes>
constexpr auto variables(expr::shape_tag<Shapes>...) {
    static_assert(sizeof...(Shapes) >= 1, "gradc::variables(shape...): name at least one shape");
    using Set = expr::variable_set<Tag, Shapes...>;
    return []<std::size_t... I>(std::index_sequence<I...>) {
        return std::tuple<expr::array_variable<I, Set>...>{};
    }(std::make_index_sequence<sizeof...(Shapes)>{});
}

}  // namespace gradc
