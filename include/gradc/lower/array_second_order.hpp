#pragma once
/// \file
/// Second order for array kernels, forward over reverse as for scalar kernels
/// (lower/second_order.hpp): the array gradient program run on dual numbers
/// (rules/dual.hpp). Every array operation is generic in its value type, so on duals its
/// loops carry the tangents too; no second-derivative formula is written anywhere.
///
///     k.hvp(std::tie(args...), std::tie(v...))   {value, gradient, hvp}: H·v, v one per wrt variable
///     k.hessian(args...)                          {value, gradient, hessian}
///
/// The Hessian is over the wrt variables' entries in wrt order (a matrix's row-major), W
/// rows of W values indexed `hessian[i][j]` as a scalar kernel's, and exactly symmetric.
/// It is computed in sweeps of `hessian_directions` directions at once, each a dual
/// gradient program, so a dual never carries more than that many tangents: the sweeps'
/// workspaces stay small for large W.

#include <array>
#include <cstddef>
#include <tuple>
#include <utility>

#include <gradc/lower/array_results.hpp>
#include <gradc/rules/dual.hpp>

namespace gradc {

/// `k.hessian(args...)` of an array kernel with W wrt entries.
template <class T, class Gradient, std::size_t W>
struct array_hessian_result {
    T value;  ///< The value.
    Gradient gradient;  ///< The gradient, one entry per wrt variable.
    std::array<std::array<T, W>, W> hessian;  ///< hessian[i][j] = ∂²f / ∂wᵢ∂wⱼ, as a scalar kernel's.
};

/// `k.hessian_diagonal(args...)` of an array kernel.
template <class T, class Gradient>
struct array_hessian_diagonal_result {
    T value;  ///< The value.
    Gradient gradient;  ///< The gradient.
    Gradient diagonal;  ///< ∂²f/∂wᵢ² for each wrt entry, shaped as the gradient.
};

/// `k.hvp(args, v)` of an array kernel.
template <class T, class Gradient>
struct array_hvp_result {
    T value;  ///< The value.
    Gradient gradient;  ///< The gradient.
    Gradient hvp;  ///< H·v, shaped as the gradient.
};

namespace lower {

/// Directions per dual sweep of a Hessian.
inline constexpr std::size_t hessian_directions = 8;

/// The second-order calls of an array kernel (a base of gradc::array_kernel).
template <class Kernel>
class array_second_order {
public:
    /// H·v with the value and the gradient: `args` a tuple of the arguments, `v` shaped as the gradient.
    template <class Args, class V>
    auto hvp(const Args& args, const V& v) const {
        return std::apply([&](const auto&... x) { return hvp_with(v, x...); }, args);
    }

    /// The value, the gradient and the Hessian at the point, as an array_hessian_result.
    template <class... X>
    auto hessian(const X&... x) const {
        using T = typename Kernel::template call_lane_t<X...>;
        constexpr std::size_t W = Kernel::wrt_entries;
        const typename Kernel::template arguments<T> a("hessian", x...);
        array_hessian_result<T, typename Kernel::template gradient_tuple<T>, W> r{};
        std::array<T, W> grad;
        // Column c's entries on and above the diagonal, mirrored: exactly symmetric, as a
        // scalar kernel's (the two halves come from different sweeps and differ in rounding).
        unit_sweeps(a.pointers.data(), r.value, grad, [&](std::size_t column, const std::array<T, W>& entries) {
            for (std::size_t i = 0; i <= column; ++i) r.hessian[i][column] = r.hessian[column][i] = entries[i];
        });
        scatter_flat(grad.data(), r.gradient);
        return r;
    }

    /// The value, the gradient and the Hessian's diagonal (∂²f/∂wᵢ² for each wrt entry,
    /// shaped as the gradient), exact: the diagonal entries of the sweeps `hessian` runs,
    /// at its cost. (The one-direction shortcut of scalar kernels whose Hessian is
    /// diagonal by structure, lower/hessian_structure.hpp, reads scalar programs' node
    /// descriptions; array programs do not have it yet.)
    template <class... X>
    auto hessian_diagonal(const X&... x) const {
        using T = typename Kernel::template call_lane_t<X...>;
        constexpr std::size_t W = Kernel::wrt_entries;
        const typename Kernel::template arguments<T> a("hessian_diagonal", x...);
        array_hessian_diagonal_result<T, typename Kernel::template gradient_tuple<T>> r{};
        std::array<T, W> grad, diagonal;
        unit_sweeps(a.pointers.data(), r.value, grad,
                    [&](std::size_t column, const std::array<T, W>& entries) { diagonal[column] = entries[column]; });
        scatter_flat(grad.data(), r.gradient);
        scatter_flat(diagonal.data(), r.diagonal);
        return r;
    }

    // The dual sweeps behind every call, also run on SIMD batches by the batch calls
    // (simd/array_second_order_batch.hpp): never named in user code.
    /// \cond INTERNAL
    /// The whole Hessian's dual sweeps, `hessian_directions` unit directions each: the value,
    /// the flat gradient, and `column(j, entries)` for each column j of the Hessian.
    template <class T, class Grad, class Column>
    void unit_sweeps(const T* const* x, T& value, Grad& grad, Column column) const {
        constexpr std::size_t W = Kernel::wrt_entries;
        constexpr std::size_t D = W < hessian_directions ? W : hessian_directions;
        for (std::size_t first = 0; first < W; first += D) {
            std::array<std::array<T, W>, D> columns{};
            sweep<T, D>(x, first, [](std::size_t, std::size_t) { return T(0); }, value, grad, columns, true);
            for (std::size_t d = 0; d < D && first + d < W; ++d) column(first + d, columns[d]);
        }
    }

    /// One dual gradient sweep with D directions. Unit directions first, first+1, ...
    /// (`unit`), or direction 0 given by `tangent(i, 0)` for wrt entry i.
    template <class T, std::size_t D, class Tangent, class Grad, class Columns>
    void sweep(const T* const* x, std::size_t first, Tangent tangent, T& value, Grad& grad, Columns& columns,
               bool unit) const {
        using dual = dual_numbers::dual<T, D>;
        constexpr std::size_t A = Kernel::argument_entries, W = Kernel::wrt_entries;
        std::array<dual, A> xd;
        std::array<const dual*, Kernel::arity> xp;
        std::size_t at = 0;
        for (std::size_t v = 0; v < Kernel::arity; ++v) {
            xp[v] = xd.data() + at;
            const std::size_t j = wrt_position(v);
            for (std::size_t e = 0; e < Kernel::shapes[v].size(); ++e, ++at) {
                xd[at] = dual(x[v][e]);
                if (j == no_wrt) continue;
                // Directions are numbered as the gradient's entries: in wrt order, which
                // need not be the variables' order (wrt(S, x) with x declared first).
                const std::size_t wrt_index = wrt_offset(j) + e;
                for (std::size_t d = 0; d < D; ++d)
                    xd[at].tangent[d] = unit ? T(first + d == wrt_index ? 1 : 0) : tangent(wrt_index, d);
            }
        }
        std::array<dual, W> g;
        std::array<dual*, Kernel::wrt_count == 0 ? 1 : Kernel::wrt_count> gp{};
        at = 0;
        for (std::size_t j = 0; j < Kernel::wrt_count; ++j) {
            gp[j] = g.data() + at;
            at += Kernel::wrt_shape(j).size();
        }
        dual y;
        self().gradient_at(xp.data(), &y, gp.data());
        value = y.value;
        for (std::size_t i = 0; i < W; ++i) {
            grad[i] = g[i].value;
            for (std::size_t d = 0; d < D; ++d) columns[d][i] = g[i].tangent[d];
        }
    }

    /// \endcond

private:
    const Kernel& self() const { return static_cast<const Kernel&>(*this); }

    template <class V, class... X>
    auto hvp_with(const V& v, const X&... x) const {
        using T = typename Kernel::template call_lane_t<X...>;
        constexpr std::size_t W = Kernel::wrt_entries;
        const typename Kernel::template arguments<T> a("hvp", x...);
        const auto vp = Kernel::template wrt_arguments<T>("hvp", v);
        std::array<T, W> flat_v;
        std::size_t at = 0;
        for (std::size_t j = 0; j < Kernel::wrt_count; ++j)
            for (std::size_t e = 0; e < Kernel::wrt_shape(j).size(); ++e) flat_v[at++] = vp.pointers[j][e];
        std::array<std::array<T, W>, 1> column{};
        T value;
        std::array<T, W> grad;
        sweep<T, 1>(a.pointers.data(), 0, [&](std::size_t i, std::size_t) { return flat_v[i]; }, value, grad, column,
                    false);
        array_hvp_result<T, typename Kernel::template gradient_tuple<T>> r{};
        r.value = value;
        scatter_flat(grad.data(), r.gradient);
        scatter_flat(column[0].data(), r.hvp);
        return r;
    }

    static constexpr std::size_t no_wrt = static_cast<std::size_t>(-1);
    /// Where wrt variable j's entries start among the gradient's.
    static constexpr std::size_t wrt_offset(std::size_t j) {
        std::size_t at = 0;
        for (std::size_t q = 0; q < j; ++q) at += Kernel::wrt_shape(q).size();
        return at;
    }
    static constexpr std::size_t wrt_position(std::size_t v) {
        for (std::size_t j = 0; j < Kernel::wrt_count; ++j)
            if (Kernel::wrt_variables[j] == v) return j;
        return no_wrt;
    }
};

}  // namespace lower
}  // namespace gradc
