#pragma once
/// \file
/// L·x for L = lower_triangular<D>(v), read from the packed values v themselves:
/// `lower_triangular<D>(v) * x` is lowered to this one node (expr/operators.hpp), so
/// neither the D×D matrix nor its adjoint is formed and the zeros above the diagonal
/// cost nothing: D(D+1)/2 products instead of D², in the value and in each adjoint.
/// The packed order is lower_triangular_of's (rules/arrays/access.hpp).

#include <array>
#include <cstddef>
#include <string_view>

#include <gradc/rules/arrays/access.hpp>
#include <gradc/rules/arrays/signature.hpp>

// Each operation's members are the array-operation contract's, documented once in
// rules/arrays/signature.hpp; the API reference hides them per operation (the INTERNAL
// sections) instead of repeating them.
namespace gradc::rules::arrays {

/// L·x, L the D×D lower-triangular matrix packed in a vector of D(D+1)/2 values (D =
/// dynamic_extent: d taken from x's length when the kernel is called).
template <std::size_t D>
struct packed_lower_matvec {
    /// \cond INTERNAL
    static constexpr std::string_view name = "lower_triangular_matvec";
    static constexpr bool run_time_extents = true;
    static constexpr std::array<std::string_view, 2> adjoint_text{"ȳ·xᵀ (lower part, packed)", "Lᵀ·ȳ"};
    using packing = lower_triangular_of<D>;

    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& operands) {
        return shape_with_arity<2>(operands, [](const auto& s) {
            if (!s[0].is_vector() || !s[1].is_vector()) return invalid_dims;
            const std::size_t d = D != dynamic_extent ? D : s[1].rows;
            if (d == dynamic_extent) return vector_dims(dynamic_extent);
            if (!extents_fit(s[0].rows, d * (d + 1) / 2) || !extents_fit(s[1].rows, d)) return invalid_dims;
            return vector_dims(d);
        });
    }
    /// y[r] (=, or += when Add) v[r]·x[r] + Σ_{c<r} v[strict(r, c)]·x[c], row by row.
    /// (Column by column, D sums at once, measured 1.7× slower on batches: the sums did
    /// not stay in registers.)
    ///
    /// Every loop here is unrolled whole: the inner bound depends on the outer index, and
    /// g++ 12 otherwise leaves the outer loop rolled and enters the inner one through a
    /// compare and branch per entry (unrolled, the GMM's gradient takes an eighth less
    /// time: docs/benchmark-history.md, "ADBench GMM, gradc static: deferred product edges
    /// and unrolled triangular loops").
    ///
    /// With d known only at run time, the packed position walks along the row instead:
    /// strict(r, c + 1) = strict(r, c) + d - c - 2 (computing it per entry took half the
    /// time of a run-time GMM step; a column-by-column form, inner loops of axpys, was
    /// no faster at d = 10).
    template <bool Add, class Side, class T>
    static void lower_times(Side d, T* __restrict y, const T* v, const T* x) {
        if constexpr (D != dynamic_extent) {
#pragma GCC unroll 64
            for (std::size_t r = 0; r < D; ++r) {
                T s = v[r] * x[r];
#pragma GCC unroll 64
                for (std::size_t c = 0; c < r; ++c) s += v[packing::strict(r, c, D)] * x[c];
                put<Add>(y[r], s);
            }
        } else {
            // Four rows at once, each summed in its own order (the fixed loop's): their
            // chains of multiply-adds overlap, where one row at a time waited on each
            // (a quarter of a run-time GMM step). At a given c the four rows' packed
            // entries are consecutive: strict(r + 1, c) = strict(r, c) + 1.
            std::size_t r = 0;
            for (; r + 4 <= d; r += 4) {
                T s0 = v[r] * x[r], s1 = v[r + 1] * x[r + 1], s2 = v[r + 2] * x[r + 2], s3 = v[r + 3] * x[r + 3];
                std::size_t at = d + r - 1;
                for (std::size_t c = 0; c < r; at += d - c - 2, ++c) {
                    s0 += v[at] * x[c];
                    s1 += v[at + 1] * x[c];
                    s2 += v[at + 2] * x[c];
                    s3 += v[at + 3] * x[c];
                }
                // Rows r + 1, r + 2, r + 3 go on past column r - 1 alone.
                s1 += v[at + 1] * x[r];
                s2 += v[at + 2] * x[r];
                s3 += v[at + 3] * x[r];
                at += d - r - 2;  // row r + j's entry at column c is at(r, c) + j
                s2 += v[at + 2] * x[r + 1];
                s3 += v[at + 3] * x[r + 1];
                at += d - r - 3;
                s3 += v[at + 3] * x[r + 2];
                put<Add>(y[r], s0);
                put<Add>(y[r + 1], s1);
                put<Add>(y[r + 2], s2);
                put<Add>(y[r + 3], s3);
            }
            for (; r < d; ++r) {
                T s = v[r] * x[r];
                for (std::size_t c = 0, at = d + r - 1; c < r; at += d - c - 2, ++c) s += v[at] * x[c];
                put<Add>(y[r], s);
            }
        }
    }
    template <bool Add, class T>
    static void put(T& to, const T& s) {
        if constexpr (Add) {
            to += s;
        } else {
            to = s;
        }
    }
    template <class S, class T>
    static void value(S ext, T* __restrict y, const T* v, const T* x) {
        lower_times<false>(packing::side(std::get<0>(ext.all)), y, v, x);
    }
    template <class S, class T>
    static void adjoint(arg_t<0>, S ext, const T* yb, T* __restrict vb, const T*, const T*, const T* x) {
        const auto d = packing::side(std::get<0>(ext.all));
        if constexpr (D != dynamic_extent) {
#pragma GCC unroll 64
            for (std::size_t r = 0; r < D; ++r) {
                vb[r] += yb[r] * x[r];
#pragma GCC unroll 64
                for (std::size_t c = 0; c < r; ++c) vb[packing::strict(r, c, D)] += yb[r] * x[c];
            }
        } else {
            for (std::size_t r = 0; r < d; ++r) {
                vb[r] += yb[r] * x[r];
                for (std::size_t c = 0, at = d + r - 1; c < r; at += d - c - 2, ++c) vb[at] += yb[r] * x[c];
            }
        }
    }
    /// x̄[c] += Σ_{r≥c} L(r, c)·ȳ[r], column by column (a column of L is contiguous in
    /// the packed values).
    template <class S, class T>
    static void adjoint(arg_t<1>, S ext, const T* yb, T* __restrict xb, const T*, const T* v, const T*) {
        const auto d = packing::side(std::get<0>(ext.all));
        if constexpr (D != dynamic_extent) {
#pragma GCC unroll 64
            for (std::size_t c = 0; c < D; ++c) {
                T s = v[c] * yb[c];
#pragma GCC unroll 64
                for (std::size_t r = c + 1; r < D; ++r) s += v[packing::strict(r, c, D)] * yb[r];
                xb[c] += s;
            }
        } else {
            for (std::size_t c = 0; c < d; ++c) {
                T s = v[c] * yb[c];
                for (std::size_t r = c + 1, at = c + 1 < d ? packing::strict(c + 1, c, d) : 0; r < d; ++r, ++at)
                    s += v[at] * yb[r];
                xb[c] += s;
            }
        }
    }
    template <class S, class T>
    static void tangent(arg_t<0>, S ext, T* __restrict yd, const T* vd, const T*, const T*, const T* x) {
        lower_times<true>(packing::side(std::get<0>(ext.all)), yd, vd, x);
    }
    template <class S, class T>
    static void tangent(arg_t<1>, S ext, T* __restrict yd, const T* xd, const T*, const T* v, const T*) {
        lower_times<true>(packing::side(std::get<0>(ext.all)), yd, v, xd);
    }
    /// \endcond
};

}  // namespace gradc::rules::arrays

namespace gradc::rules {
/// L·x is linear in L's packed values and in x.
template <std::size_t D, int I>
inline constexpr affinity affine_in<arrays::packed_lower_matvec<D>, I> = affinity::linear;
}  // namespace gradc::rules
