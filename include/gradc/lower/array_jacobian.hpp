#pragma once
/// \file
/// The Jacobian of an array kernel at one point (a base of gradc::array_kernel):
///
///     k.jacobian(args...)    {value, jacobian}: jacobian[i][j] = ∂ yᵢ / ∂ wⱼ
///
/// Rows are the output entries (each output flattened row-major, outputs in order) and
/// columns the wrt entries (each wrt variable flattened row-major, in wrt order), as a
/// scalar kernel's `jacobian[m][j]` is over its outputs and wrt variables. `value` is what
/// `k(args...)` returns. The batch call `jacobian_batch` (simd/array_batch_interface.hpp)
/// runs the same sweeps at every point. The Jacobian comes from whichever sweeps are fewer: one reverse
/// sweep per output entry (a row each) when there are no more rows than columns, else one
/// tangent sweep per wrt entry (a column each); both run the kernel's own programs.

#include <array>
#include <cstddef>
#include <tuple>
#include <utility>

#include <gradc/lower/array_results.hpp>
#include <gradc/rules/value_traits.hpp>

namespace gradc {

/// `k.jacobian(args...)` of an array kernel with M output entries and W wrt entries.
template <class T, class Value, std::size_t M, std::size_t W>
struct array_jacobian_result {
    Value value;  ///< The output(s), as `k(args...)` returns them.
    std::array<std::array<T, W>, M> jacobian;  ///< jacobian[i][j] = ∂ output entry i / ∂ wrt entry j.
};

namespace lower {

/// The Jacobian call of an array kernel.
template <class Kernel>
class array_jacobian {
public:
    /// The outputs and the Jacobian of every output entry by every wrt entry.
    template <class... X>
    auto jacobian(const X&... x) const {
        using T = typename Kernel::template call_lane_t<X...>;
        constexpr std::size_t M = output_entries(), W = Kernel::wrt_entries;
        const typename Kernel::template arguments<T> a("jacobian", x...);
        std::array<T, M> values{};  // every output has an entry: M ≥ 1
        std::array<T, M * W == 0 ? 1 : M * W> flat;
        auto lease = self().lease();
        jacobian_in(lease, a.pointers.data(), values.data(), flat.data());
        array_jacobian_result<T, decltype(self().value(x...)), M, W> r{};
        for (std::size_t i = 0; i < M; ++i)
            for (std::size_t j = 0; j < W; ++j) r.jacobian[i][j] = flat[i * W + j];
        scatter_values(values.data(), r.value);
        return r;
    }

    /// \cond INTERNAL
    /// The pointer form, for numbers and SIMD batches (the batch call `jacobian_batch`):
    /// values[i] ← output entry i, jac[i·W + j] ← ∂ output entry i / ∂ wrt entry j, with
    /// the arrays in the lease's storage.
    template <class T, class Lease>
    void jacobian_in(Lease& lease, const T* const* x, T* values, T* jac) const {
        constexpr std::size_t M = output_entries(), W = Kernel::wrt_entries;
        const T zero(rules::scalar_t<T>(0)), one(rules::scalar_t<T>(1));
        std::array<T*, Kernel::output_count> value_at = output_pointers(values);
        if constexpr (M <= W) {
            // Row i: the adjoint sweep seeded with the unit vector of output entry i.
            std::array<T, M> seed;
            seed.fill(zero);
            std::array<const T*, Kernel::output_count> w = output_pointers(static_cast<const T*>(seed.data()));
            for (std::size_t i = 0; i < M; ++i) {
                seed[i] = one;
                std::array<T*, Kernel::wrt_count == 0 ? 1 : Kernel::wrt_count> g = wrt_pointers(jac + i * W);
                self().adjoint_in(lease, x, value_at.data(), w.data(), g.data());
                seed[i] = zero;
            }
        } else {
            // Column j: the tangent sweep along the unit vector of wrt entry j.
            std::array<T, W == 0 ? 1 : W> direction;
            direction.fill(zero);
            std::array<const T*, Kernel::wrt_count == 0 ? 1 : Kernel::wrt_count> dx =
                wrt_pointers(static_cast<const T*>(direction.data()));
            for (std::size_t j = 0; j < W; ++j) {
                direction[j] = one;
                std::array<T, M> column;
                std::array<T*, Kernel::output_count> t = output_pointers(column.data());
                self().tangent_in(lease, x, dx.data(), value_at.data(), t.data());
                for (std::size_t i = 0; i < M; ++i) jac[i * W + j] = column[i];
                direction[j] = zero;
            }
            if constexpr (W == 0) self().value_in(lease, x, value_at.data());
        }
    }
    /// \endcond

private:
    // Return types are deduced: this class is a base of Kernel, which is incomplete when
    // these declarations are read.
    const Kernel& self() const { return static_cast<const Kernel&>(*this); }

    static constexpr std::size_t output_entries() {
        std::size_t n = 0;
        for (std::size_t m = 0; m < Kernel::output_count; ++m) n += Kernel::output_shape(m).size();
        return n;
    }
    /// Pointers to each output's entries within one flat array.
    template <class P>
    static auto output_pointers(P* flat) {
        std::array<P*, Kernel::output_count> p{};
        for (std::size_t m = 0, at = 0; m < Kernel::output_count; at += Kernel::output_shape(m).size(), ++m)
            p[m] = flat + at;
        return p;
    }
    /// Pointers to each wrt variable's entries within one flat array.
    template <class P>
    static auto wrt_pointers(P* flat) {
        std::array<P*, Kernel::wrt_count == 0 ? 1 : Kernel::wrt_count> p{};
        for (std::size_t j = 0, at = 0; j < Kernel::wrt_count; at += Kernel::wrt_shape(j).size(), ++j) p[j] = flat + at;
        return p;
    }
    /// The flat output entries into the value `k(args...)` returns (one output, or a tuple).
    template <class T, class Value>
    static void scatter_values(const T* flat, Value& value) {
        if constexpr (Kernel::output_count == 1) {
            T* p = entries_of(value);
            for (std::size_t e = 0; e < Kernel::output_shape(0).size(); ++e) p[e] = flat[e];
        } else {
            std::size_t at = 0;
            std::apply([&](auto&... v) { ((copy_value(flat, at, v)), ...); }, value);
        }
    }
    template <class T, class V>
    static void copy_value(const T* flat, std::size_t& at, V& v) {
        T* p = entries_of(v);
        for (std::size_t e = 0; e < sizeof(V) / sizeof(T); ++e) p[e] = flat[at++];
    }
};

}  // namespace lower
}  // namespace gradc
