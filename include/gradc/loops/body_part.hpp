#pragma once
/// \file
/// A part of a loop's body hoisted out of the loop: node H of the body, which does not
/// depend on the loop's counter and is read by the nodes that do (loops/body.hpp,
/// `hoisted`). It is an operation of the enclosing program, an operand of the loop
/// node, so it runs once per run of the loop; and since it is a node there like any
/// other, a part that does not depend on an enclosing loop's counter either is hoisted
/// out of that loop in turn (the inverse Cholesky factors of a mixture model, built
/// from the parameters alone, are computed once per call, not once per point and
/// component). Its operands: the body's variables, the enclosing loops' counters its
/// subtree reads, the body's literals (loops/body_call.hpp). Its steps run the body's
/// program on H's subtree only:
///  - value: the subtree's primal, H's value out;
///  - adjoint: the subtree's primal, then its adjoint from ȳ placed at H;
///  - tangent: the subtree's primal and tangent, H's tangent added to ẏ.
/// The parts of one body share one buffer per thread (they run one after another, never
/// inside each other): it holds the whole body's arrays, and a buffer per part made an
/// ODE's dozen parts allocate and clear 12 × 47 MB on the first call at n = 10⁵.

#include <array>
#include <cstddef>
#include <string_view>

#include <gradc/loops/body_call.hpp>
#include <gradc/rules/arrays/signature.hpp>

namespace gradc::loops {

/// \cond INTERNAL

template <class Body, class Tag, std::size_t H, class Carry, class FallbackSet>
struct part_nodes {
    using nodes = typename body_program<Body, Tag, Carry, FallbackSet>::nodes;
    static constexpr auto& counters = nodes::template counters_in<nodes::template subtree<H>>;
};

/// A chained loop's part (Carry not void) also takes the loop's init, after the common
/// operands: the body's program reads the carry as a variable, and its layout needs the
/// carry's extents (the part's subtree never reads it). Then the outer carries the body
/// reads (loops/body.hpp), which the part's subtree may read.
/// What identifies a part apart from its body (lower/node_structure.hpp's
/// `rule_identity`: the body is its loop's f's result, and Tag is f's type).
template <class Tag, std::size_t H, class Carry, class FallbackSet>
struct body_part_identity;

template <class Body, class Tag, std::size_t H, class Carry = void, class FallbackSet = void>
struct body_part : body_runner<Body, Tag, part_nodes<Body, Tag, H, Carry, FallbackSet>::counters, Carry, FallbackSet> {
    using runner = body_runner<Body, Tag, part_nodes<Body, Tag, H, Carry, FallbackSet>::counters, Carry, FallbackSet>;
    using identity_type = body_part_identity<Tag, H, Carry, FallbackSet>;
    using typename runner::nodes;
    using typename runner::program;
    using runner::BL;
    static constexpr std::size_t operand_count = runner::common_operands + runner::body::carries;
    static constexpr auto& part = nodes::template subtree<H>;

    static constexpr std::string_view name = "loop_invariant";
    static constexpr bool run_time_extents = true;
    static constexpr bool derivatives_together = true;
    static constexpr std::array<std::string_view, 1> adjoint_text{"the hoisted part's adjoint"};

    /// Whether its value reads operand k: of the variables, only those of its subtree (the
    /// others are operands for the runner's layout alone). A map-reduce then computes a
    /// part of parameters alone once per call, though the body also reads the data.
    static constexpr bool reads_operand(std::size_t k) {
        if (k >= runner::common_operands) {
            const std::size_t c = k - runner::common_operands;  // a carry: the loop's init, or an outer carry
            return c >= runner::body::carry_count &&
                   part[nodes::outer_carry_nodes[c - runner::body::carry_count]];  // the init: for the layout alone
        }
        return k >= nodes::variable_count || nodes::holds_variable(part, nodes::variables[k]);
    }

    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>&) {
        return N == operand_count ? BL.shape[H] : rules::arrays::invalid_dims;
    }
    template <std::size_t N>
    static dims result_shape_at(const std::array<dims, N>& s, const std::array<double, N>& literal) {
        if constexpr (N != operand_count) {
            return rules::arrays::invalid_dims;
        } else {
            return runner::shape_at(H, s, literal);
        }
    }

    template <class S, class T, class... P>
    static void value(S ext, T* __restrict y, const P*... p) {
        const typename runner::template call<body_part, T> c(ext, std::array<const T*, operand_count>{p...});
        const auto f = c.frame(runner::template buffer<typename runner::body, T>(c.value_size));
        program::template primal<part>(f);
        runner::copy(y, program::steps::template value_of<H>(f), c.size_of(H));
    }

    template <class S, class T, class... P>
    static void adjoint_all(S ext, const T* yb, const std::array<T*, operand_count>& cb, const T*, const P*... p) {
        if constexpr (BL.live[H]) {
            const typename runner::template call<body_part, T> c(ext, std::array<const T*, operand_count>{p...});
            T* values = runner::template buffer<typename runner::body, T>(c.value_size + c.derivative_size + c.variables_size);
            const auto wrt = runner::adjoint_arrays(c, cb, values + c.value_size + c.derivative_size);
            const auto f = c.frame(values);
            const lower::derivative_frame<T> d{wrt.data(), values + c.value_size, c.run};
            program::template primal<part>(f);
            program::template clear<part>(d);
            runner::copy(program::steps::template derivative_of<H>(d), yb, c.size_of(H));
            program::template adjoint<part, false, program::all_edges, part_forwards>(
                f, d, static_cast<const T* const*>(nullptr));
        }
    }

    template <class S, class T, class... P>
    static void tangent_all(S ext, T* __restrict yd, const std::array<const T*, operand_count>& cd, const T*,
                            const P*... p) {
        if constexpr (BL.live[H]) {
            const typename runner::template call<body_part, T> c(ext, std::array<const T*, operand_count>{p...});
            T* values = runner::template buffer<typename runner::body, T>(c.value_size + c.derivative_size);
            const auto wrt = runner::tangent_arrays(c, cd);
            const auto f = c.frame(values);
            const lower::derivative_frame<T> d{wrt.data(), values + c.value_size, c.run};
            program::template primal<part>(f);
            program::template tangent_part<part>(f, d);
            runner::add(yd, program::steps::template derivative_of<H>(d), c.size_of(H));
        }
    }

private:
    static constexpr auto& part_forwards = runner::template forwards_in<program, part>;

};

/// \endcond

}  // namespace gradc::loops
