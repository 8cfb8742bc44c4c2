#pragma once
/// \file
/// The one-point half of an array kernel (variables from `gradc::variables(shape...)`):
/// the array programs (lower/array_program.hpp) bound to the expressions' literals, with
/// calls taking one argument per variable (lower/array_arguments.hpp says which types):
///
///     k(W, b, x)                    the value (T, or std::array<T, size> for an array output)
///     k.gradient(W, b, x)           {value, std::tuple of one gradient per wrt variable}
///     k.jvp(std::tie(W, b, x), std::tie(dW, db))   {value, tangent}: dx one per wrt variable
///     k.vjp(std::tie(W, b, x), w)   {value, gradient tuple}: w of the output's shape
///     k.jacobian(W, b, x)           {value, jacobian[i][j]} (lower/array_jacobian.hpp)
///
/// The pointer forms `value_at`, `gradient_at`, `adjoint_at`, `tangent_at` serve the batch executors
/// (simd/array_batch_interface.hpp), which run them on SIMD batches. Every call keeps
/// the nodes' values and adjoints on the stack, or in the kernel's workspace when they
/// exceed the stack budget (lower/array_workspace.hpp).

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include <gradc/expr/nodes.hpp>
#include <gradc/lower/array_call_arguments.hpp>
#include <gradc/lower/array_program.hpp>
#include <gradc/lower/array_results.hpp>
#include <gradc/lower/array_shapes.hpp>
#include <gradc/lower/array_workspace.hpp>
#include <gradc/lower/run_time_calls.hpp>

namespace gradc::lower {

/// The one-point half of an array kernel (`gradc::compile` of an expression over
/// `gradc::variables(shape...)`): value, gradient, jvp, vjp at one point; docs/static.md, "Arrays".
template <class Program, std::size_t LiteralCount>
class array_kernel {
    static_assert(run_time_operations<typename Program::analysis, typename Program::flat_type>::fit);

public:
    using program = Program;  ///< The lowered array program.
    using set = typename Program::set;  ///< The variable set it was compiled from.
    static constexpr std::size_t arity = Program::arity;  ///< Arguments: one per variable of the set.
    static constexpr std::size_t output_count = Program::output_count;  ///< The number of outputs.
    static constexpr std::size_t wrt_count = Program::wrt_count;  ///< Variables differentiated.
    static constexpr auto wrt_variables = Program::wrt_variables;  ///< Their positions.
    static constexpr auto& shapes = set::shapes;  ///< Each variable's shape.
    static constexpr auto& layout = Program::L;  ///< Each node's shape and value range.
    /// The shape of output m and of wrt variable j.
    static constexpr dims output_shape(std::size_t m) { return layout.shape[Program::output_node(m)]; }
    static constexpr dims wrt_shape(std::size_t j) { return shapes[wrt_variables[j]]; }  ///< Of wrt variable j.
    /// Entries of all variables, of all wrt variables, of all outputs.
    using argument_shapes_t = typename argument_shapes<Program, std::make_index_sequence<arity>>::type;
    using wrt_shapes_t = typename wrt_shapes<Program, std::make_index_sequence<wrt_count>>::type;  ///< Wrt shapes.
    /// The outputs' shapes.
    using output_shapes_t = typename output_shapes<Program, std::make_index_sequence<output_count>>::type;

    /// The number of entries of all variables.
    static constexpr std::size_t argument_entries = [] {
        std::size_t n = 0;
        for (const dims& s : set::shapes) n += s.size();
        return n;
    }();
    /// The number of entries of all wrt variables (the gradient's length).
    static constexpr std::size_t wrt_entries = [] {
        std::size_t n = 0;
        for (std::size_t j = 0; j < wrt_count; ++j) n += wrt_shape(j).size();
        return n;
    }();

    using literal_values = std::array<double, LiteralCount>;  ///< The outputs' literals.

    /// Whether the kernel owns a workspace: its node values and adjoints would take more
    /// than `stack_budget` (64 KiB) of stack for the widest value type its calls use
    /// (lower/array_workspace.hpp). Without one, the kernel is as large as its literals.
    static constexpr bool has_workspace = workspace_plan<layout.value_size, layout.derivative_size>::has_workspace;
    /// Bytes of one slab of the workspace (one call's arrays on the widest value type); 0 without one.
    static constexpr std::size_t workspace_slab_bytes =
        workspace_plan<layout.value_size, layout.derivative_size>::slab_bytes;
    /// The slabs of the workspace (concurrent calls served without allocating); 0 without one.
    std::size_t workspace_slabs() const {
        const workspace_pool* p = workspace_.pool();
        return p == nullptr ? 0 : p->slabs();
    }

    /// Keeps the outputs' literal values, and finds which copies of a subexpression hold
    /// equal literals, so that their adjoints are summed as one node's
    /// (lower/equal_copies.hpp).
    template <class... Outs>
    explicit array_kernel(const Outs&... outputs)
        : literals_{expr::join_literal_values(expr::literal_values(outputs)...)} {
        if constexpr (Program::analysis::copies.count > 0) forward_ = Program::forward_offsets(literals_);
    }

    const literal_values& literals() const { return literals_; }  ///< The outputs' literal values.
    /// The forward table of the copies (per copy, its target's adjoint offset, or
    /// no_node), for the programs' frames.
    const std::size_t* forwards() const { return forward_.data(); }

    /// One gradient entry per wrt variable: T or std::array<T, size>.
    template <class T>
    using gradient_tuple = typename value_tuple<T, wrt_shapes_t>::type;
    /// The value of the (first) output: T, or std::array<T, size>.
    template <class T>
    using output_value_t = std::tuple_element_t<0, typename value_tuple<T, output_shapes_t>::type>;
    static constexpr dims first_output = output_shape(0);  ///< The first output's shape.

    // ---- calls on one point ----------------------------------------------------------

    /// `k(args...)`: value(args...).
    template <class... X>
    auto operator()(const X&... x) const {
        return value(x...);
    }

    /// The output(s) at the point: one argument per variable (a number for a scalar; a
    /// std::array, std::span or Eigen matrix of R·C values, row-major, for an array).
    template <class... X>
    auto value(const X&... x) const {
        using T = call_lane_t<X...>;
        arguments<T> a("value", x...);
        typename value_tuple<T, output_shapes_t>::type out{};
        std::array<T*, output_count> o;
        if constexpr (layout.has_dynamic) {
            const auto rl = dynamic_calls::layout("value", a, literals_.data());
            const run_time_view v = rl.view();
            [&]<std::size_t... m>(std::index_sequence<m...>) {
                ((dynamic_calls::template shape_output<m>(std::get<m>(out), rl), o[m] = entries_of(std::get<m>(out))), ...);
            }(std::make_index_sequence<output_count>{});
            dynamic_calls::value(run_time_context(), v, a.pointers.data(), o.data());
        } else {
            [&]<std::size_t... m>(std::index_sequence<m...>) { ((o[m] = entries_of(std::get<m>(out))), ...); }(
                std::make_index_sequence<output_count>{});
            value_at(a.pointers.data(), o.data());
        }
        if constexpr (output_count == 1) {
            return std::get<0>(out);
        } else {
            return out;
        }
    }

    /// The value and its gradient with respect to the wrt variables (one scalar output),
    /// as an array_gradient_result.
    template <class... X>
    auto gradient(const X&... x) const {
        static_assert(output_count == 1 && output_shape(0).is_scalar(),
                      "gradc kernel: gradient() is for a kernel with one scalar output; use vjp(args, w) "
                      "for an array output or several outputs");
        using T = call_lane_t<X...>;
        arguments<T> a("gradient", x...);
        array_gradient_result<T, gradient_tuple<T>> r{};
        std::array<T*, wrt_count == 0 ? 1 : wrt_count> g{};
        if constexpr (layout.has_dynamic) {
            const auto rl = dynamic_calls::layout("gradient", a, literals_.data());
            const run_time_view v = rl.view();
            const auto sizes = dynamic_calls::shape_gradient(r.gradient, a);
            pointers_to(r.gradient, g.data());
            const T one(rules::scalar_t<T>(1));
            const T* w = &one;
            T* value = &r.value;
            dynamic_calls::adjoint(run_time_context(), v, a.pointers.data(), &value, &w, g.data(), sizes.data());
        } else {
            pointers_to(r.gradient, g.data());
            gradient_at(a.pointers.data(), &r.value, g.data());
        }
        return r;
    }

    /// The value and J·dx, dx one tangent per wrt variable (a tuple, as args); one output.
    template <class Args, class Tangents>
    auto jvp(const Args& args, const Tangents& tangents) const {
        static_assert(output_count == 1, "gradc kernel: jvp(args, tangents) of an array kernel has one output");
        static_assert(std::tuple_size_v<Tangents> == wrt_count,
                      "gradc kernel: jvp(args, tangents): give one tangent per wrt variable");
        return std::apply([&](const auto&... x) { return jvp_with(tangents, x...); }, args);
    }

    /// The value and wᵀJ for weights w of the output's shape; one output.
    template <class Args, class W>
    auto vjp(const Args& args, const W& w) const {
        static_assert(output_count == 1, "gradc kernel: vjp(args, w) of an array kernel has one output");
        return std::apply([&](const auto&... x) { return vjp_with(w, x...); }, args);
    }

    // ---- pointer forms, for any value type T (numbers, SIMD batches) ------------------

    /// out[m] ← the entries of output m.
    template <class T>
    GRADC_ALWAYS_INLINE inline void value_at(const T* const* x, T* const* out) const {
        workspace_lease lease(workspace_.pool());
        value_in(lease, x, out);
    }

    /// *value ← the output; grad[j] += its gradient by wrt variable j (grad[j] holds the
    /// entries of variable j; they are added to, so map-reduce sums in place).
    template <class T>
    GRADC_ALWAYS_INLINE inline void gradient_at(const T* const* x, T* value, T* const* grad, bool clear_gradient = true) const {
        const T one(rules::scalar_t<T>(1));
        const T* w = &one;
        if (clear_gradient) clear_wrt(grad);
        workspace_lease lease(workspace_.pool());
        run_adjoint(lease, x, &value, &w, grad);
    }

    /// *value ← the output; grad[j] += weight · its gradient (nothing cleared): the
    /// map-reduce step, with weight 0 in the unused lanes of a partial batch.
    template <class T>
    GRADC_ALWAYS_INLINE inline void gradient_at_weighted(const T* const* x, T* value, T* const* grad, const T& weight) const {
        const T* w = &weight;
        workspace_lease lease(workspace_.pool());
        run_adjoint(lease, x, &value, &w, grad);
    }

    /// values[m] ← output m; grad[j] ← Σₘ wₘᵀ·∂(output m)/∂(wrt variable j), cleared first.
    template <class T>
    void adjoint_at(const T* const* x, T* const* values, const T* const* w, T* const* grad) const {
        workspace_lease lease(workspace_.pool());
        adjoint_in(lease, x, values, w, grad);
    }

    /// values[m] ← output m, tangents[m] ← its tangent for the wrt tangents dx[j].
    template <class T>
    GRADC_ALWAYS_INLINE inline void tangent_at(const T* const* x, const T* const* dx, T* const* values, T* const* tangents) const {
        workspace_lease lease(workspace_.pool());
        tangent_in(lease, x, dx, values, tangents);
    }

    // How calls read their arguments and claim the workspace: used by the batch and
    // second-order calls, never named in user code, left out of the API reference.
    /// \cond INTERNAL
    // ---- the workspace, for the batch calls (simd/array_batch_interface.hpp) ----------

    using plan = workspace_plan<layout.value_size, layout.derivative_size>;
    /// An unclaimed lease on the workspace: a batch call's per-chunk claim.
    workspace_lease lease() const { return workspace_lease(workspace_.pool()); }

    /// The pointer forms with the arrays in the lease's storage (or on the stack).
    template <class T>
    GRADC_ALWAYS_INLINE inline void tangent_in(workspace_lease& lease, const T* const* x, const T* const* dx,
                                               T* const* values, T* const* tangents) const {
        require_fixed_extents<layout.has_dynamic>();
        node_storage<plan, T, true> s(lease);
        const array_frame<T, arity> f{x, s.values(), literals_.data(), forward_.data()};
        Program::primal(f);
        copy_outputs(f, values);
        const derivative_frame<T> df{const_cast<T* const*>(dx), s.derivatives()};
        Program::tangent(f, df, tangents);
    }
    template <class T>
    GRADC_ALWAYS_INLINE inline void value_in(workspace_lease& lease, const T* const* x, T* const* out) const {
        require_fixed_extents<layout.has_dynamic>();
        node_storage<plan, T, false> s(lease);
        const array_frame<T, arity> f{x, s.values(), literals_.data(), forward_.data()};
        Program::primal(f);
        copy_outputs(f, out);
    }
    template <class T>
    GRADC_ALWAYS_INLINE inline void gradient_in(workspace_lease& lease, const T* const* x, T* value, T* const* grad) const {
        const T one(rules::scalar_t<T>(1));
        const T* w = &one;
        clear_wrt(grad);
        run_adjoint(lease, x, &value, &w, grad);
    }
    template <class T>
    GRADC_ALWAYS_INLINE inline void adjoint_in(workspace_lease& lease, const T* const* x, T* const* values,
                                               const T* const* w, T* const* grad) const {
        clear_wrt(grad);
        run_adjoint(lease, x, values, w, grad);
    }

    // ---- the calls' arguments, for the calls of other files (second order) -----------

    template <class... X>
    struct lane_of {
        using type = std::common_type_t<argument_lane_t<X>...>;
    };
    template <class... X>
    using call_lane_t = typename lane_of<X...>::type;

    /// The call's arguments as pointers, with their extents (lower/array_call_arguments.hpp).
    template <class T>
    using arguments = call_arguments<Program, T>;

    /// The one-point calls at run-time extents (lower/run_time_calls.hpp) and what they
    /// need besides the arguments, for the Jacobian and second-order calls of such a
    /// kernel (lower/run_time_derivatives.hpp).
    using dynamic_calls = run_time_calls<Program>;
    typename dynamic_calls::context run_time_context() const {
        return {literals_.data(), forward_.data(), growing_.slabs};
    }

    /// Tangents of the wrt variables, one per wrt variable, as pointers.
    template <class T, class Tangents>
    static auto wrt_arguments(const char* call, const Tangents& tangents) {
        return wrt_values<Program, T, wrt_shapes_t>(call, tangents, shapes);
    }

/// \endcond
private:
    template <class Tangents, class... X>
    auto jvp_with(const Tangents& tangents, const X&... x) const {
        using T = call_lane_t<X...>;
        arguments<T> a("jvp", x...);
        const wrt_values<Program, T, wrt_shapes_t> dx("jvp", tangents, a.extents);
        array_jvp_result<output_value_t<T>> r{};
        if constexpr (layout.has_dynamic) {
            const auto rl = dynamic_calls::layout("jvp", a, literals_.data());
            const run_time_view v = rl.view();
            dynamic_calls::template shape_output<0>(r.value, rl);
            dynamic_calls::template shape_output<0>(r.tangent, rl);
            T* p = entries_of(r.value);
            T* t = entries_of(r.tangent);
            dynamic_calls::tangent(run_time_context(), v, a.pointers.data(), dx.pointers.data(), &p, &t);
        } else {
            T* p = entries_of(r.value);
            T* t = entries_of(r.tangent);
            tangent_at(a.pointers.data(), dx.pointers.data(), &p, &t);
        }
        return r;
    }

    template <class W, class... X>
    auto vjp_with(const W& w, const X&... x) const {
        using T = call_lane_t<X...>;
        arguments<T> a("vjp", x...);
        array_vjp_result<output_value_t<T>, gradient_tuple<T>> r{};
        std::array<T*, wrt_count == 0 ? 1 : wrt_count> g{};
        if constexpr (layout.has_dynamic) {
            const auto rl = dynamic_calls::layout("vjp", a, literals_.data());
            const run_time_view v = rl.view();
            typename buffer_of<T, first_output>::type wbuf;
            const T* wp = dynamic_calls::template weights_of<T>(w, wbuf, rl.shape[Program::output_node(0)]);
            dynamic_calls::template shape_output<0>(r.value, rl);
            const auto sizes = dynamic_calls::shape_gradient(r.gradient, a);
            pointers_to(r.gradient, g.data());
            T* p = entries_of(r.value);
            dynamic_calls::adjoint(run_time_context(), v, a.pointers.data(), &p, &wp, g.data(), sizes.data());
        } else {
            std::array<T, first_output.size()> wbuf;
            const T* wp = argument_pointer<T, first_output>("vjp", arity, w, wbuf);
            pointers_to(r.gradient, g.data());
            T* p = entries_of(r.value);
            workspace_lease lease(workspace_.pool());
            run_adjoint(lease, a.pointers.data(), &p, &wp, g.data());
        }
        return r;
    }

    // ---- run-time extents ------------------------------------------------------------

    template <bool Dynamic>
    static constexpr void require_fixed_extents() {
        static_assert(!Dynamic, "gradc kernel: with extents known only at run time, this call is not there yet: "
                                "the one-point calls are (docs/static.md, \"Extents known at run time\")");
    }

    template <class Tuple, class T>
    static void pointers_to(Tuple& t, T** p) {
        [&]<std::size_t... j>(std::index_sequence<j...>) { ((p[j] = entries_of(std::get<j>(t))), ...); }(
            std::make_index_sequence<std::tuple_size_v<Tuple>>{});
    }

    template <class T>
    static void clear_wrt(T* const* grad) {
        for (std::size_t j = 0; j < wrt_count; ++j)
            for (std::size_t e = 0; e < wrt_shape(j).size(); ++e) grad[j][e] = T(rules::scalar_t<T>(0));
    }

    template <class T>
    GRADC_ALWAYS_INLINE inline void copy_outputs(const array_frame<T, arity>& f, T* const* out) const {
        [&]<std::size_t... m>(std::index_sequence<m...>) GRADC_ALWAYS_INLINE {
            (void)std::initializer_list<int>{(copy_output<Program::output_node(m)>(f, out[m]), 0)...};
        }(std::make_index_sequence<output_count>{});
    }
    template <std::size_t N, class T>
    static void copy_output(const array_frame<T, arity>& f, T* out) {
        const T* y = Program::steps::template value_of<N>(f);
        for (std::size_t e = 0, entries = Program::steps::template size_of<N>(f); e < entries; ++e) out[e] = y[e];
    }

    /// Primal, outputs into values, then the adjoint with weights w into grad (added).
    template <class T>
    GRADC_ALWAYS_INLINE inline void run_adjoint(workspace_lease& lease, const T* const* x, T* const* values, const T* const* w,
                                  T* const* grad) const {
        require_fixed_extents<layout.has_dynamic>();
        node_storage<plan, T, true> s(lease);
        const array_frame<T, arity> f{x, s.values(), literals_.data(), forward_.data()};
        Program::primal(f);
        copy_outputs(f, values);
        Program::adjoint(f, derivative_frame<T>{grad, s.derivatives()}, w);
    }

    literal_values literals_;
    [[no_unique_address]] forward_table_of<Program::analysis::copies.count> forward_;
    [[no_unique_address]] workspace_member<plan> workspace_;
    [[no_unique_address]] growing_member<layout.has_dynamic> growing_;
};

}  // namespace gradc::lower
