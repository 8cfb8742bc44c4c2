#pragma once
/// \file
/// The array operation of a loop whose steps chain, `gradc::loop(n, init, f)`
/// (loops/loop.hpp): the carry c₀ = init, c_{k+1} = f(c_k, k), the result c_n. Its
/// operands: the body's variables, the enclosing loops' counters its steps read, the
/// body's literals (loops/body_call.hpp), the init, the parts hoisted out of the body
/// (loops/body_part.hpp: the body's nodes that depend on neither the counter nor the
/// carry, computed once by the enclosing program), then the count's source. A step runs
/// the steps' program (loops/body.hpp), which reads the carry as a variable:
///  - value: per k the step's primal on the carry, its result the next carry (kept in
///    the loop's own result array);
///  - adjoint, by stored steps: a forward sweep keeps every step's incoming carry (n ×
///    the carry's entries, in the loop's buffer per thread, grown on first use); then
///    from k = n − 1 down to 0, the step's values again from its stored carry and its
///    adjoint seeded by c̄_{k+1}, which adds to the variables' and the hoisted parts'
///    adjoints and gives c̄_k; the init's adjoint gets c̄₀. A step keeps nothing else,
///    so memory is the carries alone and each step's primal runs twice;
///  - tangent: per k the step's primal and tangent, the carry's tangent handed on.
/// Every derivative step takes every operand at once (`derivatives_together`).

#include <array>
#include <cstddef>
#include <string_view>
#include <tuple>
#include <utility>

#include <gradc/loops/body_call.hpp>
#include <gradc/loops/loop_rule.hpp>
#include <gradc/rules/arrays/signature.hpp>

namespace gradc::loops {

/// \cond INTERNAL

template <class Body, class Tag, class Carry, class FallbackSet>
struct chained_step_nodes {
    using nodes = typename body_program<Body, Tag, Carry, FallbackSet>::nodes;
    static constexpr auto& counters = nodes::template counters_in<nodes::step_reads>;
};

/// Whether a body's shape b may be a carry of shape c: the same kind, and equal extents
/// where both are fixed.
constexpr bool carry_fits(const dims& b, const dims& c) {
    if (!b.valid() || !c.valid() || b.kind != c.kind) return false;
    const auto fit = [](std::size_t x, std::size_t y) { return x == y || x == dynamic_extent || y == dynamic_extent; };
    return fit(b.rows, c.rows) && fit(b.cols, c.cols);
}

template <class Body, class Tag, class Carry, class FallbackSet, count_kind Count>
struct chained_loop
    : body_runner<Body, Tag, chained_step_nodes<Body, Tag, Carry, FallbackSet>::counters, Carry, FallbackSet> {
    using runner = body_runner<Body, Tag, chained_step_nodes<Body, Tag, Carry, FallbackSet>::counters, Carry, FallbackSet>;
    using typename runner::nodes;
    using program = typename runner::step_program;
    static constexpr auto& BL = program::L;
    template <class T>
    using call = typename runner::template call<chained_loop, T, program>;
    static constexpr std::size_t init_operand = runner::common_operands;
    static constexpr std::size_t first_hoisted = init_operand + 1;
    static constexpr std::size_t operand_count = first_hoisted + nodes::hoisted_count + 1;
    static constexpr std::size_t count_operand = operand_count - 1;
    static constexpr std::size_t out = nodes::output;
    /// The carry's position among the step program's wrt variables (after the body's).
    static constexpr std::size_t carry_wrt = runner::variable_count;

    static constexpr std::string_view name = "loop";
    static constexpr bool run_time_extents = true;
    static constexpr bool derivatives_together = true;
    static constexpr std::array<std::string_view, 1> adjoint_text{
        "the steps' adjoints for k = n-1, …, 0, each from its stored carry"};

    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& s) {
        if constexpr (N != operand_count) {
            return invalid_dims;
        } else {
            return carry_fits(Body::shape, s[init_operand]) ? s[init_operand] : invalid_dims;
        }
    }
    /// When the kernel runs: the carry's shape, if the body's result has it.
    template <std::size_t N>
    static dims result_shape_at(const std::array<dims, N>& s, const std::array<double, N>& literal) {
        if constexpr (N != operand_count) {
            return invalid_dims;
        } else {
            return runner::shape_at(out, s, literal) == s[init_operand] ? s[init_operand] : invalid_dims;
        }
    }

    template <class S, class T, class... P>
    static void value(S ext, T* __restrict y, const P*... p) {
        const std::array<const T*, operand_count> ops{p...};
        const call<T> c(ext, ops);
        const std::size_t n = count(ext, ops), m = c.size_of(out);
        auto f = c.frame(runner::template buffer<chained_loop, T>(c.value_size), nullptr);
        runner::copy(y, ops[init_operand], m);  // y holds the carry from step to step
        if (n == 0) return;
        program::template primal<nodes::once>(f);
        c.read_carry(y);
        for (std::size_t k = 0; k < n; ++k) {
            c.at(k);
            program::template primal<nodes::varying>(f);
            next(y, program::steps::template value_of<out>(f), m);
        }
    }

    /// Adds to every swept operand's adjoint (cb[i] non-null) at once.
    template <class S, class T, class... P>
    static void adjoint_all(S ext, const T* yb, const std::array<T*, operand_count>& cb, const T*, const P*... p) {
        const std::array<const T*, operand_count> ops{p...};
        const call<T> c(ext, ops);
        const std::size_t n = count(ext, ops), m = c.size_of(out);
        T* values = runner::template buffer<chained_loop, T>(c.value_size + c.derivative_size + c.variables_size +
                                                             2 * m + n * m);
        T* room = values + c.value_size + c.derivative_size;
        T* bar = room + c.variables_size;
        T* bar_before = bar + m;
        T* carries = bar_before + m;  // step k's incoming carry at k·m
        auto wrt = runner::adjoint_arrays(c, cb, room);
        const auto forward = program::forward_offsets(c.literals);
        auto f = c.frame(values, forward.data());
        const lower::derivative_frame<T> d{wrt.data(), values + c.value_size, c.run};
        runner::copy(bar, yb, m);
        if (n > 0) {
            program::template primal<nodes::once>(f);
            runner::copy(carries, ops[init_operand], m);
            for (std::size_t k = 0; k < n; ++k) {
                c.read_carry(carries + k * m);
                c.at(k);
                program::template primal<nodes::varying>(f);
                if (k + 1 < n) runner::copy(carries + (k + 1) * m, program::steps::template value_of<out>(f), m);
            }
            for (std::size_t k = n; k-- > 0;) {
                if (k + 1 < n) {  // the last step's values are still in place
                    c.read_carry(carries + k * m);
                    c.at(k);
                    program::template primal<nodes::varying>(f);
                }
                for (std::size_t e = 0; e < m; ++e) bar_before[e] = T(rules::scalar_t<T>(0));
                wrt[carry_wrt] = bar_before;
                const T* seeds[1] = {bar};
                program::template adjoint<nodes::varying, true, program::all_edges, step_forwards>(f, d, seeds);
                std::swap(bar, bar_before);
            }
        }
        if (cb[init_operand] != nullptr) runner::add(cb[init_operand], bar, m);
    }

    /// Adds every swept operand's tangent's contribution (cd[i] non-null) to ẏ at once.
    template <class S, class T, class... P>
    static void tangent_all(S ext, T* __restrict yd, const std::array<const T*, operand_count>& cd, const T*,
                            const P*... p) {
        const std::array<const T*, operand_count> ops{p...};
        const call<T> c(ext, ops);
        const std::size_t n = count(ext, ops), m = c.size_of(out);
        T* values = runner::template buffer<chained_loop, T>(c.value_size + c.derivative_size + 3 * m);
        T* carry = values + c.value_size + c.derivative_size;
        T* carry_tangent = carry + m;
        T* next_tangent = carry_tangent + m;
        auto wrt = runner::tangent_arrays(c, cd);
        auto f = c.frame(values, nullptr);
        const lower::derivative_frame<T> d{wrt.data(), values + c.value_size, c.run};
        runner::copy(carry, ops[init_operand], m);
        for (std::size_t e = 0; e < m; ++e)
            carry_tangent[e] = cd[init_operand] != nullptr ? cd[init_operand][e] : T(rules::scalar_t<T>(0));
        if (n > 0) {
            program::template primal<nodes::once>(f);
            c.read_carry(carry);
            for (std::size_t k = 0; k < n; ++k) {
                c.at(k);
                wrt[carry_wrt] = carry_tangent;
                program::template primal<nodes::varying>(f);
                program::template tangent_part<nodes::varying>(f, d);
                if constexpr (BL.live[out]) {
                    runner::copy(next_tangent, program::steps::template derivative_of<out>(d), m);
                } else {
                    for (std::size_t e = 0; e < m; ++e) next_tangent[e] = T(rules::scalar_t<T>(0));
                }
                next(carry, program::steps::template value_of<out>(f), m);
                std::swap(carry_tangent, next_tangent);
            }
        }
        runner::add(yd, carry_tangent, m);
    }

private:
    /// The copies of equal subexpressions that pass their adjoints on in a step's sweep.
    static constexpr auto& step_forwards = runner::template forwards_in<program, nodes::varying>;

    /// The next carry into `carry` (nothing to copy when the body returns its carry).
    template <class T>
    static void next(T* carry, const T* result, std::size_t m) {
        if (carry != result) runner::copy(carry, result, m);
    }

    template <class S, class T>
    static std::size_t count(const S& ext, const std::array<const T*, operand_count>& ops) {
        return count_at<Count, operand_count>(ext, ops);
    }
};

/// \endcond

}  // namespace gradc::loops
