#pragma once
/// \file
/// The carry of a loop whose steps chain (`gradc::loop(n, init, f)`, loops/loop.hpp):
/// the value one step hands to the next. The loop builds its body once, by calling f
/// with a `loop_carry` (a leaf of init's shape, the carry entering the step) and the
/// loop's counter. In the flat graph it is a named node, as a counter is; the body's
/// program reads it as one more variable, after the kernel's (loops/body.hpp), so each
/// step reads the carry where the loop keeps it and its adjoint is swept back like a
/// variable's. Its Tag is the body's type, the same as its counter's. Its entries read
/// as any expression's (`c[gradc::index<0>]`, `c[i]`, `c(i, j)`: expr/entry_access.hpp).

#include <array>
#include <cstddef>

#include <gradc/expr/entry_access.hpp>
#include <gradc/expr/graph.hpp>
#include <gradc/expr/shape.hpp>

namespace gradc::expr {

/// The carry of the loop whose body has type Tag, of shape {Rows, Cols, Kind} (the
/// extents are separate parameters: g++ 12 does not deduce a class-type parameter here).
template <class Tag, std::size_t Rows, std::size_t Cols, rules::arrays::shape_kind Kind>
struct loop_carry
    : entry_access_unless_scalar<Kind == rules::arrays::shape_kind::scalar, loop_carry<Tag, Rows, Cols, Kind>> {
    static constexpr dims shape{Rows, Cols, Kind};  ///< The init's shape.
    static constexpr bool is_condition = false;  ///< A value, not a condition.
    /// What a named node's tag gives (graphs::named_value); never read for a carry.
    static constexpr double value = 0;
    /// Its flat graph: one named node, merged with the body's other uses of it.
    using graph = graphs::graph<0, graphs::no_inputs, graphs::no_nodes,
                                graphs::entry<loop_carry, graphs::named<loop_carry>>>;
};

/// A carry has no literal values.
template <class Tag, std::size_t R, std::size_t C, rules::arrays::shape_kind K>
constexpr std::array<double, 0> literal_values(const loop_carry<Tag, R, C, K>&) {
    return {};
}

}  // namespace gradc::expr
