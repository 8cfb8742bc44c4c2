#pragma once
/// \file
/// The states of a loop whose steps chain, kept as its result: for c₀ = init and
/// c_{k+1} = f(c_k, k), the n + 1 carries c₀, …, c_n as the rows of a matrix (a vector
/// for a scalar carry). An emitting loop (loops/emit.hpp) reads its final carry as the
/// last row and its per-step outputs from the rows before. The operands are a chained
/// loop's (loops/chained_loop.hpp); the steps too:
///  - value: row 0 the init, row k + 1 step k's result from row k;
///  - adjoint: the result holds every step's incoming carry, so nothing is run forward
///    first: from k = n − 1 down to 0, the step's values again from row k and its
///    adjoint seeded by c̄_{k+1}, which gives c̄_k, to which row k's own adjoint adds;
///  - tangent: the carry's tangent handed on, each step's into its row.

#include <array>
#include <cstddef>
#include <string_view>

#include <gradc/loops/chained_loop.hpp>

namespace gradc::loops {

/// \cond INTERNAL

template <class Body, class Tag, class Carry, class FallbackSet, count_kind Count>
struct loop_states : chained_loop<Body, Tag, Carry, FallbackSet, Count, false> {
    using loop = chained_loop<Body, Tag, Carry, FallbackSet, Count, false>;
    using identity_type = chained_loop_identity<Tag, Carry, FallbackSet, Count, false, true>;
    using typename loop::runner;
    using typename loop::nodes;
    using typename loop::program;
    template <class T>
    using call = typename runner::template call<loop_states, T, program>;
    using loop::carry_wrt;
    using loop::init_operand;
    using loop::operand_count;
    using loop::out;
    static_assert(loop::counted, "gradc internal: a while loop does not keep its states");
    static_assert(!Carry::shape.is_matrix(), "gradc internal: a loop keeps the states of a scalar or vector carry only");

    static constexpr std::string_view name = "loop_states";
    static constexpr std::array<std::string_view, 1> adjoint_text{
        "the steps' adjoints for k = n-1, …, 0, each from its state, with the state's own adjoint"};

    /// n + 1 rows of the carry's shape (a vector of n + 1 for a scalar carry), n read
    /// from the count's source (or unknown: dynamic_extent).
    static constexpr dims states_shape(const dims& carry, const dims& source, double literal) {
        if (!carry.valid() || carry.is_matrix()) return invalid_dims;
        const std::size_t n = count_of<Count>(source, literal);
        const std::size_t rows = n == dynamic_extent ? dynamic_extent : n + 1;
        return carry.is_scalar() ? vector_dims(rows) : rules::arrays::matrix_dims(rows, carry.rows);
    }
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& s) {
        const dims carry = loop::result_shape(s);
        if constexpr (N != operand_count) {
            return invalid_dims;
        } else {
            return states_shape(carry, s[N - 1], -1.0);
        }
    }
    template <std::size_t N>
    static dims result_shape_at(const std::array<dims, N>& s, const std::array<double, N>& literal) {
        const dims carry = loop::result_shape_at(s, literal);
        if constexpr (N != operand_count) {
            return invalid_dims;
        } else {
            return states_shape(carry, s[N - 1], literal[N - 1]);
        }
    }

    template <class S, class T, class... P>
    static void value(S ext, T* __restrict y, const P*... p) {
        const std::array<const T*, operand_count> ops{p...};
        const call<T> c(ext, ops);
        const std::size_t n = count(ext, ops), m = c.size_of(out);
        auto f = c.frame(runner::template buffer<loop_states, T>(c.value_size));
        runner::copy(y, ops[init_operand], m);
        if (n == 0) return;
        program::template primal<nodes::once>(f);
        for (std::size_t k = 0; k < n; ++k) {
            c.read_carry(y + k * m);
            c.at(k);
            program::template primal<nodes::varying>(f);
            runner::copy(y + (k + 1) * m, program::steps::template value_of<out>(f), m);
        }
    }

    /// Adds to every swept operand's adjoint (cb[i] non-null) at once.
    template <class S, class T, class... P>
    static void adjoint_all(S ext, const T* yb, const std::array<T*, operand_count>& cb, const T* states,
                            const P*... p) {
        loop::template reverse_steps<loop_states>(
            ext, cb, std::array<const T*, operand_count>{p...},
            [&](std::size_t n, std::size_t m, const auto& run_step, const auto& reverse_step,
                const auto& add_to_carry_adjoint, const auto&, const auto&) {
                add_to_carry_adjoint(yb + n * m);  // the last state's own adjoint
                for (std::size_t k = n; k-- > 0;) {
                    run_step(states + k * m, k);
                    reverse_step();
                    add_to_carry_adjoint(yb + k * m);
                }
            });
    }

    /// Adds every swept operand's tangent's contribution (cd[i] non-null) to ẏ at once:
    /// row k gets the carry's tangent after k steps.
    template <class S, class T, class... P>
    static void tangent_all(S ext, T* __restrict yd, const std::array<const T*, operand_count>& cd, const T*,
                            const P*... p) {
        loop::template carry_tangents<loop_states>(
            ext, cd, std::array<const T*, operand_count>{p...},
            [&](std::size_t k, const T* tangent, std::size_t m) { runner::add(yd + k * m, tangent, m); });
    }

private:
    template <class S, class T>
    static std::size_t count(const S& ext, const std::array<const T*, operand_count>& ops) {
        return count_at<Count, operand_count>(ext, ops);
    }
};

/// \endcond

}  // namespace gradc::loops
