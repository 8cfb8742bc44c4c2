#pragma once
/// \file
/// The layout of an array program whose extents are known only when it is called
/// (`gradc::vec<gradc::dynamic_extent>`, `gradc::mat<gradc::dynamic_extent, 3>`, …).
///
/// The structure is compiled once: every node's operation, which nodes are live, and the
/// offsets of the nodes whose shapes are fixed (lower/array_describe.hpp). What depends
/// on the extents is computed here, when the kernel is called, by running each node's
/// shape rule again on the arguments' extents — the same constexpr functions that
/// checked the expression when it was built, so the relations they imply (`A * x` needs
/// cols(A) = size(x); elementwise operands are equal or a scalar) are checked by the very
/// code that states them. A mismatch throws `gradc::Error` naming the call, the
/// operation, the extents it got and what it needs, before anything is written.
/// The dynamic nodes' ranges then follow the fixed nodes' in the values and derivative
/// arrays. The table is a few words per node, kept on the caller's stack.

#include <array>
#include <cstddef>
#include <limits>
#include <string>

#include <gradc/error.hpp>
#include <gradc/lower/array_describe.hpp>
#include <gradc/rules/arrays/signature.hpp>

namespace gradc::lower {

// The run-time layout's machinery, never named in user code: left out of the API reference.
/// \cond INTERNAL

/// What a call's sweeps read about the dynamic nodes: every node's shape, and the
/// offsets of the dynamic nodes' values and derivatives.
struct run_time_view {
    const dims* shape;
    const std::size_t* value_offset;
    const std::size_t* derivative_offset;
    std::size_t value_size;       ///< Entries of the values array, fixed and dynamic nodes.
    std::size_t derivative_size;  ///< Entries of the derivatives array.
};

/// The run-time layout of a program of N nodes.
template <std::size_t N>
struct run_time_layout {
    std::array<dims, N> shape{};
    std::array<std::size_t, N> value_offset{};
    std::array<std::size_t, N> derivative_offset{};
    std::size_t value_size = 0;
    std::size_t derivative_size = 0;
    run_time_view view() const {
        return {shape.data(), value_offset.data(), derivative_offset.data(), value_size, derivative_size};
    }
};

/// A shape in words, for messages: "a scalar", "a vector of 5", "a 3×4 matrix".
inline std::string shape_in_words(const dims& s) {
    if (s.is_scalar()) return "a scalar";
    if (s.is_vector()) return "a vector of " + std::to_string(s.rows);
    return "a " + std::to_string(s.rows) + "×" + std::to_string(s.cols) + " matrix";
}

/// The error of an operation whose operands' extents, known at run time, do not fit.
[[noreturn]] inline void extents_do_not_fit(const char* call, std::string_view operation, const dims* operands,
                                            std::size_t count, bool elementwise) {
    std::string got;
    for (std::size_t k = 0; k < count; ++k) got += (k == 0 ? "" : " and ") + shape_in_words(operands[k]);
    throw Error(std::string("gradc kernel ") + call + ": " + std::string(operation) + " got " + got + "; " +
                (elementwise ? "an elementwise operation needs operands of one shape, or scalars"
                             : "their extents do not fit the operation (docs/static.md, \"Extents known at run "
                               "time\", lists what each operation needs)"));
}

template <class Node>
struct run_time_shape;
template <std::size_t J>
struct run_time_shape<input<J>> {
    template <std::size_t A, std::size_t N>
    static dims of(const char*, const std::array<dims, A>& arguments, const std::array<dims, N>&, std::size_t& saved,
                   const std::array<double, N>&) {
        saved = 0;
        return arguments[J];
    }
};
template <std::size_t L>
struct run_time_shape<constant<L>> {
    template <std::size_t A, std::size_t N>
    static dims of(const char*, const std::array<dims, A>&, const std::array<dims, N>&, std::size_t& saved,
                   const std::array<double, N>&) {
        saved = 0;
        return rules::arrays::scalar_dims;
    }
};
template <class Tag>
struct run_time_shape<named<Tag>> : run_time_shape<constant<0>> {};
/// The literal value of an operand, for an operation whose shape depends on one
/// (`segment(v, offset, n)`, a loop's count): a constant node's value, NaN otherwise.
template <class Operand>
struct operand_literal {
    template <std::size_t N>
    static double of(const std::array<double, N>&) {
        return std::numeric_limits<double>::quiet_NaN();
    }
};
template <std::size_t I>
struct operand_literal<ref<I>> {
    template <std::size_t N>
    static double of(const std::array<double, N>& node_literal) {
        return node_literal[I];
    }
};

template <class R, class... O>
struct run_time_shape<apply<R, O...>> {
    template <std::size_t A, std::size_t N>
    static dims of(const char* call, const std::array<dims, A>&, const std::array<dims, N>& s, std::size_t& saved,
                   const std::array<double, N>& node_literal) {
        using traits = array_node_traits<apply<R, O...>>;
        dims y;
        if constexpr (requires { R::template result_shape_at<sizeof...(O)>({}, {}); }) {
            // An operation whose extents depend on literal operands' values.
            y = R::template result_shape_at<sizeof...(O)>(std::array<dims, sizeof...(O)>{operand_shape<O>::of(s)...},
                                                          std::array<double, sizeof...(O)>{
                                                              operand_literal<O>::of(node_literal)...});
        } else {
            y = traits::shape_from(s);
        }
        if (!y.valid()) {
            const dims in[] = {operand_shape<O>::of(s)...};
            if constexpr (traits::elementwise) {
                extents_do_not_fit(call, R::name, in, sizeof...(O), true);
            } else {
                extents_do_not_fit(call, R::name, in, sizeof...(O), false);
            }
        }
        saved = traits::template saved<void>(s);
        return y;
    }
};
/// A node's literal value: a constant's, NaN for any other node.
template <class Node>
struct node_literal {
    static double of(const double*) { return std::numeric_limits<double>::quiet_NaN(); }
};
template <std::size_t L>
struct node_literal<constant<L>> {
    static double of(const double* literals) { return literals[L]; }
};

/// The run-time layout of the program analysed by Analysis, for arguments of the given
/// shapes (every extent known) and the program's literal values (some operations'
/// extents are literals: `segment(v, offset, n)`): throws gradc::Error, naming `call`,
/// when they do not fit.
template <class Analysis, class... Nodes, std::size_t A>
run_time_layout<sizeof...(Nodes)> layout_at(const char* call, const std::array<dims, A>& arguments,
                                             const double* literals) {
    constexpr auto& L = Analysis::layout;
    constexpr std::size_t size = sizeof...(Nodes);
    run_time_layout<size> r;
    std::array<std::size_t, size> saved{};
    const std::array<double, size> literal_of{node_literal<Nodes>::of(literals)...};
    std::size_t i = 0;
    ((r.shape[i] = run_time_shape<Nodes>::of(call, arguments, r.shape, saved[i], literal_of), ++i), ...);
    for (std::size_t n = 0; n < size; ++n) {
        // A shape the expression fixed must come out the same from the arguments.
        if (!L.shape[n].is_dynamic() && !(r.shape[n] == L.shape[n]))
            throw Error(std::string("gradc kernel ") + call + ": node " + std::to_string(n) + " is " +
                        shape_in_words(r.shape[n]) + " for these arguments, where the expression fixed " +
                        shape_in_words(L.shape[n]));
    }
    r.value_size = L.value_size;
    r.derivative_size = L.derivative_size;
    for (std::size_t n = 0; n < size; ++n) {
        if (!L.dynamic[n]) {
            r.value_offset[n] = L.value_offset[n];
            r.derivative_offset[n] = L.derivative_offset[n];
            continue;
        }
        if (L.is_input[n]) continue;
        r.value_offset[n] = r.value_size;
        r.value_size += r.shape[n].size() + saved[n];
        if (L.live[n]) {
            r.derivative_offset[n] = r.derivative_size;
            r.derivative_size += r.shape[n].size();
        }
    }
    return r;
}

/// \endcond

}  // namespace gradc::lower
