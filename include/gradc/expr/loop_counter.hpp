#pragma once
/// \file
/// The index k of a loop whose count is known only when the kernel runs
/// (`gradc::sum_over(n, f)`, `gradc::concat_over(n, f)`, include/gradc/loops/): the
/// loop builds its body once, by calling f with a `loop_counter`, a scalar leaf that
/// holds k while the body runs. It indexes (`x[k]`, `row(M, k)`, `col(M, k)`,
/// `M(k, j)`, `segment(v, k, n)`) and takes part in arithmetic like any scalar. Its
/// Tag is the body's type, so the counters of nested loops are told apart by type. In
/// the flat graph it is a named node (`graphs::named<loop_counter<Tag>>`): it carries no
/// payload, and a body's uses of it are one node; the lowering reads its value from the
/// body's frame (lower/array_steps.hpp), never from the tag.

#include <array>
#include <cstddef>

#include <gradc/expr/graph.hpp>
#include <gradc/expr/input_index.hpp>
#include <gradc/expr/shape.hpp>

namespace gradc::expr {

/// The index of the loop whose body has type Tag.
template <class Tag>
struct loop_counter {
    static constexpr dims shape = scalar_dims;     ///< A scalar.
    static constexpr bool is_condition = false;  ///< A value, not a condition.
    /// What a named node's tag gives (graphs::named_value); never read for a counter.
    static constexpr double value = 0;
    /// Its flat graph: one named node, merged with the body's other uses of it.
    using graph = graphs::graph<0, graphs::no_inputs, graphs::no_nodes,
                                graphs::entry<loop_counter, graphs::named<loop_counter>>>;
};

/// Whether E is a loop's counter.
template <class E>
inline constexpr bool is_loop_counter = false;
template <class Tag>
inline constexpr bool is_loop_counter<loop_counter<Tag>> = true;  ///< A loop's counter.

/// Whether a flat node is a loop counter (graphs::named<loop_counter<Tag>>).
template <class Node>
inline constexpr bool is_counter_node = false;
template <class Tag>
inline constexpr bool is_counter_node<graphs::named<loop_counter<Tag>>> = true;  ///< A counter's node.

/// A counter has no literal values.
template <class Tag>
constexpr std::array<double, 0> literal_values(const loop_counter<Tag>&) {
    return {};
}

}  // namespace gradc::expr
