#pragma once
/// \file
/// The scalar half of a compiled kernel: the lowered programs of some outputs, bound to
/// the expressions' literal values. Calls are generic in the value type: doubles,
/// floats, or any type the rules accept. The executors over arrays of points
/// (simd/batch_interface.hpp) call the same programs through `value_at`, `gradient_at`
/// and `jvp_at`; `gradc::kernel` (gradc/kernel.hpp) joins the two halves.

#include <array>
#include <cstddef>
#include <type_traits>

#include <gradc/expr/nodes.hpp>
#include <gradc/lower/program.hpp>
#include <gradc/rules/dual.hpp>
#include <gradc/lower/results.hpp>
#include <gradc/lower/second_order.hpp>

namespace gradc::lower {

namespace detail {

template <class T>
using argument_value_t = std::conditional_t<std::is_integral_v<T>, double, T>;

/// The value type of a call: the common arithmetic type of numeric arguments (integers
/// count as double), or the one non-arithmetic type (a SIMD batch, a dual number, ...).
template <class... Ts>
struct call_value_type {
    static constexpr bool all_arithmetic = (std::is_arithmetic_v<Ts> && ...);
    using type = std::conditional_t<all_arithmetic, std::common_type_t<argument_value_t<Ts>...>,
                                    std::common_type_t<Ts...>>;
};

template <std::size_t Expected, std::size_t Got>
struct argument_count {
    static constexpr bool matches = Expected == Got;
};

}  // namespace detail

/// The one-point half of a compiled scalar kernel (`gradc::compile` of expressions over
/// `gradc::variables<N>()`): value, gradient, jvp, vjp, jacobian, hessian, hvp at one
/// point, generic in the value type (docs/static.md, "Kernels").
template <class Program, std::size_t Arity, std::size_t LiteralCount>
class kernel {
public:
    using program = Program;  ///< The lowered program.
    /// Number of arguments: the size of the variables<N>() set the outputs come from.
    static constexpr std::size_t arity = Arity;
    static constexpr std::size_t output_count = Program::output_count;  ///< The number of outputs.
    /// Number of variables derivatives are taken with respect to (entries of a gradient).
    static constexpr std::size_t wrt_count = Program::wrt_count;
    static constexpr std::array<std::size_t, wrt_count> wrt_variables = Program::wrt_variables;  ///< Positions.

    /// The literals of the outputs, in the order the programs number them.
    using literal_values = std::array<double, LiteralCount>;

    /// The literal values and, for the copies of a subexpression that holds literals, where
    /// their adjoints go (lower/equal_copies.hpp): what the programs read besides their inputs.
    using bound_literals = lower::bound_literals<LiteralCount, Program::copies.count>;

    /// Keeps the outputs' literal values (each expression holds its own, in graph order,
    /// and the outputs' graphs are merged in order: lower/merge_outputs.hpp), and finds
    /// which copies of a subexpression hold equal literals, so that their adjoints are
    /// summed as one node's.
    template <class... Outs>
    explicit kernel(const Outs&... outputs) : kernel(expr::join_literal_values(expr::literal_values(outputs)...)) {}

    /// The kernel of these literal values (in the programs' order).
    explicit kernel(const literal_values& values) : literals_{values} {
        if constexpr (Program::copies.count > 0) {
            literals_.forward = Program::forward_slots(literals_.values);
            for (const std::size_t to : literals_.forward) literals_.forwards = literals_.forwards || to != no_node;
        }
    }

    const literal_values& literals() const { return literals_.values; }  ///< The outputs' literal values.
    /// The literal values with the copies' forward table, as the executors pass them to
    /// the programs.
    const bound_literals& bound() const { return literals_; }

    /// The value(s) at x: T for one output, std::array<T, M> for M outputs.
    template <class... Ts>
    auto operator()(const Ts&... x) const {
        return value(pack(x...));
    }

    /// The value(s) at x, the arguments as one array.
    template <class T>
    auto value(const std::array<T, arity>& x) const {
        std::array<T, output_count> y;
        value_at(x.data(), y.data());
        if constexpr (output_count == 1) {
            return y[0];
        } else {
            return y;
        }
    }

    /// Value and gradient (one entry per wrt variable) of a one-output kernel.
    template <class... Ts>
    auto gradient(const Ts&... x) const {
        return gradient(pack(x...));
    }

    /// gradient, the arguments as one array.
    template <class T>
    gradient_result<T, wrt_count> gradient(const std::array<T, arity>& x) const {
        static_assert(output_count == 1,
                      "gradc kernel: gradient() is for a kernel with one output; "
                      "use jacobian(x...) or vjp(x, w) for several outputs");
        gradient_result<T, wrt_count> r;
        if constexpr (duals_need_every_variable<T>) {
            const auto all = every_variable().gradient(x);
            r.value = all.value;
            r.gradient = on_wrt(all.gradient);
        } else {
            gradient_at(x.data(), &r.value, r.gradient.data());
        }
        return r;
    }

    /// Value(s) and J·dx, with dx one tangent per wrt variable.
    template <class T>
    auto jvp(const std::array<T, arity>& x, const std::array<T, wrt_count>& dx) const {
        if constexpr (duals_need_every_variable<T>) return every_variable().jvp(x, on_every_variable(dx));
        std::array<T, output_count> y, t;
        jvp_at(x.data(), dx.data(), y.data(), t.data());
        if constexpr (output_count == 1) {
            return jvp_result<T>{y[0], t[0]};
        } else {
            return jvp_result<std::array<T, output_count>>{y, t};
        }
    }

    // ---- the programs on one point, through pointers: the calls above and the batch
    // executors (simd/sweeps.hpp) run them; values_of() serves vjp.

    /// out[m] = output m at x.
    template <class T>
    GRADC_ALWAYS_INLINE inline void value_at(const T* x, T* out) const {
        typename Program::template values<T> v;
        Program::primal(literals_, x, v);
        for (std::size_t m = 0; m < output_count; ++m) out[m] = v[Program::output_nodes[m]];
    }

    /// The value at x, and grad[j] = its derivative by wrt variable j (one output).
    template <class T>
    GRADC_ALWAYS_INLINE inline void gradient_at(const T* x, T* value, T* grad) const {
        typename Program::template values<T> v;
        const auto lin = Program::linearize(literals_, x, v);
        *value = v[Program::output_nodes[0]];
        const T one(rules::scalar_t<T>(1));
        Program::adjoint(lin, &one, grad);
    }

    /// values[m] = output m at x, tangents[m] = its tangent for input tangents dx.
    template <class T>
    GRADC_ALWAYS_INLINE inline void jvp_at(const T* x, const T* dx, T* values, T* tangents) const {
        typename Program::template values<T> v;
        const auto lin = Program::linearize(literals_, x, v);
        for (std::size_t m = 0; m < output_count; ++m) values[m] = v[Program::output_nodes[m]];
        Program::tangent(lin, dx, tangents);
    }

    /// grad[j] = Σₘ w[m]·∂(output m)/∂(wrt variable j) at x, w one weight per output.
    template <class T>
    GRADC_ALWAYS_INLINE inline void vjp_at(const T* x, const T* w, T* grad) const {
        typename Program::template values<T> v;
        const auto lin = Program::linearize(literals_, x, v);
        Program::adjoint(lin, w, grad);
    }

    /// Values and wᵀJ, with w one weight per output.
    template <class T>
    vjp_result<T, output_count, wrt_count> vjp(const std::array<T, arity>& x,
                                               const std::array<T, output_count>& w) const {
        if constexpr (duals_need_every_variable<T>) {
            const auto all = every_variable().vjp(x, w);
            return vjp_result<T, output_count, wrt_count>{all.value, on_wrt(all.gradient)};
        }
        typename Program::template values<T> v;
        const auto lin = Program::linearize(literals_, x.data(), v);
        vjp_result<T, output_count, wrt_count> r{values_of(v), {}};
        Program::adjoint(lin, w.data(), r.gradient.data());
        return r;
    }

    /// Values and the full Jacobian, by one reverse sweep carrying one weight vector per
    /// output, or one forward sweep carrying one tangent per wrt variable, whichever
    /// carries fewer; each partial is computed once.
    template <class... Ts>
    auto jacobian(const Ts&... x) const {
        return jacobian(pack(x...));
    }

    /// jacobian, the arguments as one array.
    template <class T>
    jacobian_result<T, output_count, wrt_count> jacobian(const std::array<T, arity>& x) const {
        if constexpr (duals_need_every_variable<T>) {
            const auto all = every_variable().jacobian(x);
            jacobian_result<T, output_count, wrt_count> r{all.value, {}};
            for (std::size_t m = 0; m < output_count; ++m) r.jacobian[m] = on_wrt(all.jacobian[m]);
            return r;
        }
        jacobian_result<T, output_count, wrt_count> r{};
        std::array<T, output_count * wrt_count == 0 ? 1 : output_count * wrt_count> flat;
        jacobian_at(x.data(), r.value.data(), flat.data());
        for (std::size_t m = 0; m < output_count; ++m)
            for (std::size_t j = 0; j < wrt_count; ++j) r.jacobian[m][j] = flat[m * wrt_count + j];
        return r;
    }

    /// values[m] = output m at x, jac[m·W + j] = ∂(output m)/∂(wrt variable j): by one
    /// reverse sweep carrying one weight vector per output, or one forward sweep carrying
    /// one tangent per wrt variable, whichever carries fewer; each partial computed once.
    /// For numbers and SIMD batches (the batch executors' `jacobian_points`).
    template <class T>
    GRADC_ALWAYS_INLINE inline void jacobian_at(const T* x, T* values, T* jac) const {
        typename Program::template values<T> v;
        const auto lin = Program::linearize(literals_, x, v);
        for (std::size_t m = 0; m < output_count; ++m) values[m] = v[Program::output_nodes[m]];
        const T zero(rules::scalar_t<T>(0));
        const T one(rules::scalar_t<T>(1));
        if constexpr (output_count <= wrt_count) {
            std::array<std::array<T, output_count>, output_count> w;  // the M unit weight vectors
            for (std::size_t m = 0; m < output_count; ++m) {
                w[m].fill(zero);
                w[m][m] = one;
            }
            std::array<std::array<T, output_count>, wrt_count> g;
            Program::adjoint(lin, w.data(), g.data());
            for (std::size_t m = 0; m < output_count; ++m)
                for (std::size_t j = 0; j < wrt_count; ++j) jac[m * wrt_count + j] = g[j][m];
        } else {
            std::array<std::array<T, wrt_count>, wrt_count> dx;  // the W unit tangent vectors
            for (std::size_t j = 0; j < wrt_count; ++j) {
                dx[j].fill(zero);
                dx[j][j] = one;
            }
            std::array<std::array<T, wrt_count>, output_count> t;
            Program::tangent(lin, dx.data(), t.data());
            for (std::size_t m = 0; m < output_count; ++m)
                for (std::size_t j = 0; j < wrt_count; ++j) jac[m * wrt_count + j] = t[m][j];
        }
    }

    /// Value, gradient and Hessian of a one-output kernel with respect to the wrt
    /// variables, by one forward-over-reverse sweep carrying W directions
    /// (lower/second_order.hpp).
    template <class... Ts>
    auto hessian(const Ts&... x) const {
        return hessian(pack(x...));
    }

    /// hessian, the arguments as one array.
    template <class T>
    hessian_result<T, wrt_count> hessian(const std::array<T, arity>& x) const {
        hessian_result<T, wrt_count> r;
        if constexpr (duals_need_every_variable<T>) {
            const auto all = every_variable().hessian(x);
            r.value = all.value;
            r.gradient = on_wrt(all.gradient);
            for (std::size_t i = 0; i < wrt_count; ++i) r.hessian[i] = on_wrt(all.hessian[wrt_variables[i]]);
            return r;
        }
        std::array<T, triangle_size(wrt_count)> upper;
        hessian_at(x.data(), &r.value, r.gradient.data(), upper.data());
        r.hessian = symmetric_from_upper<T, wrt_count>(upper.data());
        return r;
    }

    /// Value, gradient and the Hessian-vector product H·v, v one entry per wrt variable.
    template <class T>
    hvp_result<T, wrt_count> hvp(const std::array<T, arity>& x, const std::array<T, wrt_count>& v) const {
        hvp_result<T, wrt_count> r;
        if constexpr (duals_need_every_variable<T>) {
            const auto all = every_variable().hvp(x, on_every_variable(v));
            r.value = all.value;
            r.gradient = on_wrt(all.gradient);
            r.hvp = on_wrt(all.hvp);
            return r;
        }
        hvp_at(x.data(), v.data(), &r.value, r.gradient.data(), r.hvp.data());
        return r;
    }

    /// Value, gradient and the Hessian's diagonal (∂²f/∂wᵢ² for each wrt variable wᵢ). Where
    /// the Hessian is diagonal by structure (lower/hessian_structure.hpp: no node of the
    /// graph multiplies, or otherwise combines nonlinearly, two different wrt variables),
    /// it is H·1, one Hessian-vector product; otherwise the diagonal of the whole Hessian,
    /// which costs what `hessian` costs. Exact either way.
    template <class... Ts>
    auto hessian_diagonal(const Ts&... x) const {
        return hessian_diagonal(pack(x...));
    }

    /// hessian_diagonal, the arguments as one array.
    template <class T>
    hessian_diagonal_result<T, wrt_count> hessian_diagonal(const std::array<T, arity>& x) const {
        static_assert(output_count == 1, "gradc kernel: hessian_diagonal() is for a kernel with one output");
        hessian_diagonal_result<T, wrt_count> r;
        if constexpr (duals_need_every_variable<T>) {
            const auto all = every_variable().hessian(x);
            r.value = all.value;
            r.gradient = on_wrt(all.gradient);
            for (std::size_t j = 0; j < wrt_count; ++j) r.diagonal[j] = all.hessian[wrt_variables[j]][wrt_variables[j]];
        } else if constexpr (Program::hessian_is_diagonal()) {
            std::array<T, wrt_count> ones;
            ones.fill(T(1));
            hvp_at(x.data(), ones.data(), &r.value, r.gradient.data(), r.diagonal.data());
        } else {
            std::array<T, triangle_size(wrt_count)> upper;
            hessian_at(x.data(), &r.value, r.gradient.data(), upper.data());
            for (std::size_t i = 0; i < wrt_count; ++i) r.diagonal[i] = upper[triangle_index(wrt_count, i, i)];
        }
        return r;
    }

    /// The value, gradient and upper triangle of the Hessian (row-major, i ≤ j) at x.
    template <class T>
    GRADC_ALWAYS_INLINE inline void hessian_at(const T* x, T* value, T* grad, T* upper) const {
        static_assert(output_count == 1, "gradc kernel: hessian() is for a kernel with one output");
        hessian_from_duals<arity>(x, wrt_variables, gradient_program(), value, grad, upper);
    }

    /// The value, gradient and H·v at x.
    template <class T>
    GRADC_ALWAYS_INLINE inline void hvp_at(const T* x, const T* v, T* value, T* grad, T* hv) const {
        static_assert(output_count == 1, "gradc kernel: hvp() is for a kernel with one output");
        hvp_from_duals<arity>(x, v, wrt_variables, gradient_program(), value, grad, hv);
    }

private:
    /// On dual numbers, the programs take a variable outside the wrt list to carry no
    /// tangents (its terms are skipped: lower/steps.hpp, `operand_activity`), which holds for
    /// the duals of the second-order calls, seeded on wrt variables only, but not for a
    /// caller's own dual numbers: d/dw of k.gradient(x, w) with wrt(x) must see w's tangent.
    /// Such calls run the same graph with every variable wrt, and keep the wrt entries.
    template <class T>
    static constexpr bool duals_need_every_variable = dual_numbers::is_dual<T> && wrt_count < arity;

    using every_variable_program = lower::program<typename Program::nodes, typename Program::output_node_sequence,
                                                  std::make_index_sequence<arity>>;

    kernel<every_variable_program, Arity, LiteralCount> every_variable() const {
        return kernel<every_variable_program, Arity, LiteralCount>(literals_.values);
    }

    /// The wrt variables' entries of a result over every variable.
    template <class E>
    static std::array<E, wrt_count> on_wrt(const std::array<E, arity>& every) {
        std::array<E, wrt_count> some;
        for (std::size_t j = 0; j < wrt_count; ++j) some[j] = every[wrt_variables[j]];
        return some;
    }

    /// A tangent or direction over the wrt variables, spread over every variable (0 elsewhere).
    template <class T>
    static std::array<T, arity> on_every_variable(const std::array<T, wrt_count>& along_wrt) {
        std::array<T, arity> all;
        all.fill(T(rules::scalar_t<T>(0)));
        for (std::size_t j = 0; j < wrt_count; ++j) all[wrt_variables[j]] = along_wrt[j];
        return all;
    }

    template <class... Ts>
    static auto pack(const Ts&... x) {
        static_assert(detail::argument_count<arity, sizeof...(Ts)>::matches,
                      "gradc kernel: wrong number of arguments; a kernel takes one argument per "
                      "variable of the gradc::variables<N>() set its expression uses "
                      "(see argument_count<expected, got> below)");
        using T = typename detail::call_value_type<Ts...>::type;
        return std::array<T, arity>{T(x)...};
    }

    /// gradient_at as a callable on any value type (the duals of the second-order calls).
    auto gradient_program() const {
        return [self = this](const auto* x, auto* value, auto* grad) GRADC_ALWAYS_INLINE {
            self->gradient_at(x, value, grad);
        };
    }

    template <class T>
    std::array<T, output_count> values_of(const typename Program::template values<T>& v) const {
        return [&]<std::size_t... m>(std::index_sequence<m...>) {
            return std::array<T, output_count>{v[Program::output_nodes[m]]...};
        }(std::make_index_sequence<output_count>{});
    }

    bound_literals literals_;
};

}  // namespace gradc::lower
