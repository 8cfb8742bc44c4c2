#pragma once
/// \file
/// The array operation of a loop whose count is known when the kernel runs:
/// `sum_over` (Σₖ f(k)) and `concat_over` (f(0), …, f(n-1) end to end). Its operands:
/// the body's variables, the enclosing loops' counters its steps read, the body's
/// literals (loops/body_call.hpp), then the parts hoisted out of the body
/// (loops/body_part.hpp: computed once, by the enclosing program), then the count's
/// source. Its steps run the body's program n times, each step only the nodes that
/// depend on the counter (loops/body.hpp, `varying`):
///  - value: per k the step's primal, its result added to (sum) or placed in (concat)
///    the loop's;
///  - adjoint: per k, the step's primal again and its adjoint from ȳ (sum) or ȳ's k-th
///    part (concat), adding to the variables' adjoints and to the hoisted operands'. The
///    steps do not depend on each other, so recomputing a step's values costs one more
///    primal per step and no memory per step (a loop whose steps chain keeps or
///    recomputes them from checkpoints instead);
///  - tangent: per k the step's primal and tangent, added to ẏ.
/// The steps run the steps' program (loops/body.hpp, `step_program`), which reads each
/// hoisted part as a variable: its values and adjoint are the hoisted operand's own.
/// The derivative steps take every operand at once (`derivatives_together`,
/// lower/array_steps.hpp): one body sweep serves all of them.

#include <array>
#include <cstddef>
#include <string_view>
#include <tuple>

#include <gradc/loops/body_call.hpp>
#include <gradc/rules/arrays/signature.hpp>

namespace gradc::loops {

/// What a loop makes of its steps' results.
enum class loop_kind {
    sum,     ///< Their sum (`gradc::sum_over`).
    concat,  ///< Them end to end (`gradc::concat_over`).
    stack    ///< Them as the rows of a matrix (`gradc::stack_over`; a vector for scalar steps).
};
/// Where a loop's count comes from.
enum class count_kind {
    literal,  ///< A number fixed when the expression is built.
    rows,     ///< The rows of an array (`gradc::rows(M)`).
    cols,     ///< The columns of an array (`gradc::cols(M)`).
    size,     ///< The entries of an array (`gradc::size(v)`).
    condition ///< Until the step's condition fails (`gradc::while_loop`): no count operand.
};

/// \cond INTERNAL

using rules::arrays::dynamic_extent;
using rules::arrays::invalid_dims;
using rules::arrays::vector_dims;

/// A loop's count, from its count operand's shape (or a literal's value; < 0 when unknown).
template <count_kind Count>
constexpr std::size_t count_of(const dims& s, double literal) {
    if constexpr (Count == count_kind::literal) {
        return literal >= 0 ? std::size_t(literal) : dynamic_extent;
    } else if constexpr (Count == count_kind::rows) {
        return s.rows;
    } else if constexpr (Count == count_kind::cols) {
        return s.cols;
    } else {
        return s.is_dynamic() ? dynamic_extent : s.size();
    }
}

/// A loop's count when it runs: from the extents of its last operand (the count's
/// source), or the literal it holds.
template <count_kind Count, std::size_t N, class S, class T>
std::size_t count_at(const S& ext, const std::array<const T*, N>& ops) {
    const auto& e = std::get<N>(ext.all);
    const dims s{std::size_t(e.rows), std::size_t(e.cols), rules::arrays::shape_kind::matrix};
    return count_of<Count>(s, Count == count_kind::literal ? literal_of(*ops[N - 1]) : -1.0);
}

template <class Body, class Tag>
struct step_nodes {
    using nodes = typename body_program<Body, Tag>::nodes;
    static constexpr auto& counters = nodes::template counters_in<nodes::step_reads>;
};

/// What identifies a loop_over apart from its body (lower/node_structure.hpp's
/// `rule_identity`: the body is f's result, and Tag is f's type).
template <loop_kind Kind, class Tag, count_kind Count>
struct loop_over_identity;

template <loop_kind Kind, class Body, class Tag, count_kind Count>
struct loop_over : body_runner<Body, Tag, step_nodes<Body, Tag>::counters> {
    using identity_type = loop_over_identity<Kind, Tag, Count>;
    using runner = body_runner<Body, Tag, step_nodes<Body, Tag>::counters>;
    using typename runner::nodes;
    using program = typename runner::step_program;
    static constexpr auto& BL = program::L;
    template <class T>
    using call = typename runner::template call<loop_over, T, program>;
    using runner::common_operands;
    static constexpr std::size_t hoisted_count = nodes::hoisted_count;
    /// The outer carries the body reads (loops/body.hpp) follow the common operands.
    static constexpr std::size_t first_hoisted = common_operands + nodes::outer_carry_count;
    static constexpr std::size_t operand_count = first_hoisted + hoisted_count + 1;
    static constexpr std::size_t count_operand = operand_count - 1;
    static constexpr std::size_t out = nodes::output;

    static constexpr std::string_view name =
        Kind == loop_kind::sum ? "sum_over" : (Kind == loop_kind::concat ? "concat_over" : "stack_over");
    static constexpr bool run_time_extents = true;
    static constexpr bool derivatives_together = true;
    static constexpr std::array<std::string_view, 1> adjoint_text{"the body's adjoint for k = 0, …, n-1"};

    /// The count for the count operand's shape (or a literal's value; < 0 when unknown).
    static constexpr std::size_t count_from(const dims& s, double literal) { return count_of<Count>(s, literal); }
    /// The loop's shape for a body of shape b.
    static constexpr dims shape_for(const dims& b, const dims& source, double literal) {
        if (!b.valid()) return invalid_dims;
        if constexpr (Kind == loop_kind::sum) {
            return b;
        } else {
            if (b.is_matrix()) return invalid_dims;
            const std::size_t n = count_from(source, literal);
            const std::size_t m = b.is_scalar() ? 1 : b.rows;
            if (Kind == loop_kind::stack && b.is_vector()) return rules::arrays::matrix_dims(n, m);
            if (n == dynamic_extent || m == dynamic_extent) return vector_dims(dynamic_extent);
            return vector_dims(n * m);
        }
    }
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& s) {
        if constexpr (N != operand_count) {
            return invalid_dims;
        } else {
            return shape_for(Body::shape, s[N - 1], -1.0);
        }
    }
    /// When the kernel runs: the body's shape for these extents and literals.
    template <std::size_t N>
    static dims result_shape_at(const std::array<dims, N>& s, const std::array<double, N>& literal) {
        if constexpr (N != operand_count) {
            return invalid_dims;
        } else {
            return shape_for(runner::shape_at(out, s, literal), s[N - 1], literal[N - 1]);
        }
    }

    template <class S, class T, class... P>
    static void value(S ext, T* __restrict y, const P*... p) {
        const std::array<const T*, operand_count> ops{p...};
        const call<T> c(ext, ops);
        const std::size_t n = count(ext, ops), m = c.size_of(out);
        auto f = c.frame(runner::template buffer<loop_over, T>(c.value_size));
        enter(c, f, ops);
        if constexpr (Kind == loop_kind::sum)
            for (std::size_t e = 0; e < m; ++e) y[e] = T(rules::scalar_t<T>(0));
        if constexpr (!nodes::result_varies) {  // every step the same: one step, counted n times
            if (n == 0) return;
            program::template primal<nodes::varying>(f);
            const T* b = program::steps::template value_of<out>(f);
            for (std::size_t k = 0; k < (Kind == loop_kind::sum ? 1 : n); ++k) {
                for (std::size_t e = 0; e < m; ++e)
                    y[k * m + e] = Kind == loop_kind::sum ? b[e] * T(rules::scalar_t<T>(double(n))) : b[e];
            }
            return;
        }
        for (std::size_t k = 0; k < n; ++k) {
            c.at(k);
            program::template primal<nodes::varying>(f);
            const T* b = program::steps::template value_of<out>(f);
            if constexpr (Kind == loop_kind::sum) {
                runner::add(y, b, m);
            } else {
                runner::copy(y + k * m, b, m);
            }
        }
    }

    /// Adds to every swept operand's adjoint (cb[i] non-null) at once.
    template <class S, class T, class... P>
    static void adjoint_all(S ext, const T* yb, const std::array<T*, operand_count>& cb, const T*, const P*... p) {
        const std::array<const T*, operand_count> ops{p...};
        const call<T> c(ext, ops);
        const std::size_t n = count(ext, ops), m = c.size_of(out);
        T* values = runner::template buffer<loop_over, T>(c.value_size + c.derivative_size + c.variables_size + m);
        T* seed = values + c.value_size + c.derivative_size + c.variables_size;
        const auto wrt = runner::adjoint_arrays(c, cb, values + c.value_size + c.derivative_size);
        auto f = c.frame(values);
        const lower::derivative_frame<T> d{wrt.data(), values + c.value_size, c.run};
        enter(c, f, ops);
        if constexpr (!nodes::result_varies) {  // one step, its seed the steps' seeds summed
            if (n == 0) return;
            for (std::size_t e = 0; e < m; ++e) seed[e] = T(rules::scalar_t<T>(0));
            for (std::size_t k = 0; k < (Kind == loop_kind::sum ? 1 : n); ++k) runner::add(seed, yb + k * m, m);
            if constexpr (Kind == loop_kind::sum)
                for (std::size_t e = 0; e < m; ++e) seed[e] = seed[e] * T(rules::scalar_t<T>(double(n)));
            program::template primal<nodes::varying>(f);
            const T* seeds[1] = {seed};
            program::template adjoint<nodes::varying, true, program::all_edges, step_forwards>(f, d, seeds);
            return;
        }
        for (std::size_t k = 0; k < n; ++k) {
            c.at(k);
            program::template primal<nodes::varying>(f);
            const T* seeds[1] = {Kind == loop_kind::sum ? yb : yb + k * m};
            program::template adjoint<nodes::varying, true, program::all_edges, step_forwards>(f, d, seeds);
        }
    }

    /// Adds every swept operand's tangent's contribution (cd[i] non-null) to ẏ at once.
    template <class S, class T, class... P>
    static void tangent_all(S ext, T* __restrict yd, const std::array<const T*, operand_count>& cd, const T*,
                            const P*... p) {
        const std::array<const T*, operand_count> ops{p...};
        const call<T> c(ext, ops);
        const std::size_t n = count(ext, ops), m = c.size_of(out);
        T* values = runner::template buffer<loop_over, T>(c.value_size + c.derivative_size);
        const auto wrt = runner::tangent_arrays(c, cd);
        auto f = c.frame(values);
        const lower::derivative_frame<T> d{wrt.data(), values + c.value_size, c.run};
        enter(c, f, ops);
        if constexpr (!nodes::result_varies) {  // one step's tangent, counted n times
            if constexpr (BL.live[out]) {
                if (n == 0) return;
                program::template primal<nodes::varying>(f);
                program::template tangent_part<nodes::varying>(f, d);
                const T* t = program::steps::template derivative_of<out>(d);
                for (std::size_t k = 0; k < (Kind == loop_kind::sum ? 1 : n); ++k) {
                    for (std::size_t e = 0; e < m; ++e)
                        yd[k * m + e] += Kind == loop_kind::sum ? t[e] * T(rules::scalar_t<T>(double(n))) : t[e];
                }
            }
            return;
        }
        for (std::size_t k = 0; k < n; ++k) {
            c.at(k);
            program::template primal<nodes::varying>(f);
            program::template tangent_part<nodes::varying>(f, d);
            T* to = Kind == loop_kind::sum ? yd : yd + k * m;
            if constexpr (BL.live[out]) {
                runner::add(to, program::steps::template derivative_of<out>(d), m);
            }
        }
    }

private:
    /// The copies of equal subexpressions that pass their adjoints on in a step's sweep.
    static constexpr auto& step_forwards = runner::template forwards_in<program, nodes::varying>;

    template <class S, class T>
    static std::size_t count(const S& ext, const std::array<const T*, operand_count>& ops) {
        return count_at<Count, operand_count>(ext, ops);
    }

    /// Before the steps: the leaves they read (literals, counters), once per run.
    template <class C, class F, class T>
    static void enter(const C&, const F& f, const std::array<const T*, operand_count>&) {
        program::template primal<nodes::once>(f);
    }
};

/// \endcond

}  // namespace gradc::loops
