#pragma once
/// \file
/// Entry access on expressions, `x[i]` and `W(i, j)`, a base of every expression (it
/// costs nothing until used). Two kinds of index:
///  - `std::integral_constant`s (`gradc::index<2>`, or the k of `gradc::sum_over`): the
///    index is part of the node's type, and an index out of range does not compile;
///  - plain integers: the index is a literal of the expression, read by the kernel when
///    it runs (rules/arrays/indexed_access.hpp), so `x[i]` has one type for every i and a
///    run-time loop can build it. The shape is still checked at compile time (an entry
///    of a scalar does not compile); the range is checked here, when the node is built,
///    and a bad index throws `gradc::Error` before any node exists.

#include <concepts>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

#include <gradc/error.hpp>
#include <gradc/expr/loop_counter.hpp>
#include <gradc/rules/arrays/access.hpp>
#include <gradc/rules/arrays/indexed_access.hpp>

namespace gradc::expr {

/// Makes the expression Rule(a...): defined in expr/nodes.hpp, used here by members that
/// are instantiated only once it is.
template <class Rule, class... A>
constexpr auto make_node(const A&... a);

/// A plain integer index (`x[2]`, `row(W, i)`); bool and the integral constants of
/// compile-time indices are not.
template <class I>
concept runtime_index = std::integral<I> && !std::is_same_v<I, bool>;

/// The index i as std::size_t after checking 0 ≤ i < bound; otherwise a gradc::Error
/// that names the access (`call`), the index's name in it, what it got and the range.
template <runtime_index I>
std::size_t checked_index(I i, std::size_t bound, const char* call, const char* name, const std::string& of) {
    if (std::cmp_less(i, 0) || std::cmp_greater_equal(i, bound)) {
        throw Error(std::string("gradc: ") + call + " of " + of + ": got " + name + " = " + std::to_string(i) +
                    ", expected 0 <= " + name + " < " + std::to_string(bound));
    }
    return static_cast<std::size_t>(i);
}

/// An index operand of a run-time access: a plain integer checked now (as
/// checked_index), or a loop's counter, checked when the kernel runs.
template <class I>
auto index_operand(const I& i, std::size_t bound, const char* call, const char* name, const std::string& of) {
    if constexpr (is_loop_counter<I>) {
        return i;
    } else {
        return checked_index(i, bound, call, name, of);
    }
}
/// An index a run-time access takes: a plain integer or a loop's counter.
template <class I>
concept run_time_index_operand = runtime_index<I> || is_loop_counter<I>;

/// "a vector of n entries" or "an r×c matrix", for the messages of checked_index.
inline std::string shape_words(const rules::arrays::dims& s) {
    if (s.is_vector()) return "a vector of " + std::to_string(s.rows) + " entries";
    return "a " + std::to_string(s.rows) + "x" + std::to_string(s.cols) + " matrix";
}

/// `x[i]` and `W(i, j)` of an expression (see the file's comment for the two index kinds).
template <class Self>
struct entry_access {
    /// `x[k]`: entry k of a vector expression, k a compile-time index.
    template <class I, I K>
    constexpr auto operator[](std::integral_constant<I, K>) const {
        static_assert(Self::shape.is_vector() && std::size_t(K) < Self::shape.rows,
                      "gradc: x[i] needs a vector x with more than i entries (x[i] of a matrix: use W(i, j) or row)");
        return make_node<rules::arrays::element<std::size_t(K), 0>>(self());
    }
    /// `W(i, j)`: entry (i, j) of a matrix expression, i and j compile-time indices.
    template <class I, I R, class J, J C>
    constexpr auto operator()(std::integral_constant<I, R>, std::integral_constant<J, C>) const {
        static_assert(Self::shape.is_matrix() && std::size_t(R) < Self::shape.rows && std::size_t(C) < Self::shape.cols,
                      "gradc: W(i, j) needs a matrix W with more than i rows and j columns");
        return make_node<rules::arrays::element<std::size_t(R), std::size_t(C)>>(self());
    }

    /// `x[i]`: entry i of a vector expression, i an integer checked now (gradc::Error if
    /// out of range) and read by the kernel when it runs.
    template <runtime_index I>
    auto operator[](I i) const {
        static_assert(Self::shape.is_vector(),
                      "gradc: x[i] needs a vector x (x[i] of a matrix: use W(i, j) or row(W, i); a scalar has no "
                      "entries)");
        if constexpr (Self::shape.is_vector()) {  // only the static_assert's message when it fails
            const std::size_t k = checked_index(i, Self::shape.rows, "x[i]", "i", shape_words(Self::shape));
            return make_node<rules::arrays::element_at>(self(), k);
        }
    }
    /// `W(i, j)`: entry (i, j) of a matrix expression, i and j integers checked now
    /// (gradc::Error if out of range) and read by the kernel when it runs.
    template <runtime_index I, runtime_index J>
    auto operator()(I i, J j) const {
        static_assert(Self::shape.is_matrix(), "gradc: W(i, j) needs a matrix W (a vector's entry is x[i])");
        if constexpr (Self::shape.is_matrix()) {
            const std::string of = shape_words(Self::shape);
            const std::size_t r = checked_index(i, Self::shape.rows, "W(i, j)", "i", of);
            const std::size_t c = checked_index(j, Self::shape.cols, "W(i, j)", "j", of);
            return make_node<rules::arrays::element_at>(self(), r, c);
        }
    }

    /// `x[k]`: entry k of a vector expression, k the counter of a loop whose count is
    /// known when the kernel runs (`gradc::sum_over(n, f)`): checked then.
    template <class Tag>
    auto operator[](const loop_counter<Tag>& k) const {
        static_assert(Self::shape.is_vector(), "gradc: x[k] needs a vector x (x[k] of a matrix: use W(k, j) or row(W, k))");
        if constexpr (Self::shape.is_vector()) return make_node<rules::arrays::element_at>(self(), k);
    }
    /// `W(i, j)` with a loop's counter for i, j or both (a plain integer for the other).
    template <run_time_index_operand I, run_time_index_operand J>
        requires(is_loop_counter<I> || is_loop_counter<J>)
    auto operator()(const I& i, const J& j) const {
        static_assert(Self::shape.is_matrix(), "gradc: W(i, j) needs a matrix W (a vector's entry is x[i])");
        if constexpr (Self::shape.is_matrix()) {
            const std::string of = shape_words(Self::shape);
            return make_node<rules::arrays::element_at>(self(), index_operand(i, Self::shape.rows, "W(i, j)", "i", of),
                                                        index_operand(j, Self::shape.cols, "W(i, j)", "j", of));
        }
    }

private:
    constexpr const Self& self() const { return static_cast<const Self&>(*this); }
};

/// What a scalar node has instead of element access: the same messages, from a class
/// that is not a template, so that nothing is instantiated per node (see
/// `entry_access_unless_scalar`).
struct no_entry_access {
    /// `x[i]` of a scalar: does not compile.
    template <class I>
    auto operator[](I) const {
        static_assert(sizeof(I) == 0, "gradc: x[i] needs a vector x (a scalar has no entries)");
    }
    /// `W(i, j)` of a scalar: does not compile.
    template <class I, class J>
    auto operator()(I, J) const {
        static_assert(sizeof(I) == 0, "gradc: W(i, j) needs a matrix W (a scalar has no entries)");
    }
};

/// Element access (`x[i]`, `W(i, j)`) for a node of array shape (`node`'s base); for a
/// scalar node, only the messages. The access operators are member templates, and for
/// every class it instantiates g++ 12 pays for each member template in proportion to
/// the depth of the class's arguments (expr/graph.hpp, `extend`).
template <bool Scalar, class Self>
struct entry_access_unless_scalar : entry_access<Self> {};
template <class Self>
struct entry_access_unless_scalar<true, Self> : no_entry_access {};

}  // namespace gradc::expr
