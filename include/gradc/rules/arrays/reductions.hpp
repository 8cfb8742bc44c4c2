#pragma once
/// \file
/// Reductions of an array to a scalar — sum, mean, squared_norm, max, min, log_sum_exp —
/// and softmax. Conventions follow PyTorch's full reductions: max and min propagate NaN
/// and share the adjoint evenly among tied entries (`evenly_distribute_backward`);
/// log_sum_exp subtracts the maximum first, and an infinite maximum is replaced by 0
/// there, as torch.logsumexp does, so that all -inf gives -inf, not NaN.

#include <array>
#include <cstddef>
#include <limits>
#include <string_view>

#include <gradc/rules/arrays/loops.hpp>
#include <gradc/rules/arrays/signature.hpp>
#include <gradc/rules/exponential.hpp>
#include <gradc/rules/piecewise.hpp>

// Each operation's members are the array-operation contract's, documented once in
// rules/arrays/signature.hpp; the API reference hides them per operation (the INTERNAL
// sections) instead of repeating them.
namespace gradc::rules::arrays {

/// The shape of a full reduction: a scalar, for one array operand.
template <std::size_t N>
constexpr dims reduction_shape(const std::array<dims, N>& s) {
    if constexpr (N != 1) {
        return invalid_dims;
    } else {
        return s[0].is_scalar() ? invalid_dims : scalar_dims;
    }
}

/// The result shape of every full reduction: a scalar from one array.
struct full_reduction {
    /// \cond INTERNAL
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& s) {
        return reduction_shape(s);
    }
    /// \endcond
};

/// A full reduction of at least one entry (max, min and log_sum_exp start from the first;
/// an empty vector, possible only with extents known at run time, is refused when the
/// kernel is called).
struct nonempty_reduction {
    /// \cond INTERNAL
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& s) {
        if constexpr (N == 1) {
            if (!s[0].is_dynamic() && s[0].size() == 0) return invalid_dims;
        }
        return reduction_shape(s);
    }
    /// \endcond
};

/// Adds v to every entry of x̄ (n entries: a fixed_extent or a number).
template <class N, class T>
inline void spread(N n, T* __restrict xb, const T& v) {
    for (std::size_t i = 0; i < n; ++i) xb[i] += v;
}

/// The sum of n entries, in order (0 for none).
template <class N, class T>
inline T sum_n(N n, const T* x) {
    if (std::size_t(n) == 0) return zero_of<T>();
    T s = x[0];
    for (std::size_t i = 1; i < n; ++i) s += x[i];
    return s;
}

/// Σ xᵢ over all entries.
struct sum : full_reduction {
    /// \cond INTERNAL
    static constexpr std::string_view name = "sum";
    static constexpr bool run_time_extents = true;
    static constexpr std::array<std::string_view, 1> adjoint_text{"ȳ"};
    template <class S, class T>
    static void value(S ext, T* __restrict y, const T* x) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        y[0] = sum_n(X.size(), x);
    }
    template <class S, class T>
    static void adjoint(arg_t<0>, S ext, const T* yb, T* __restrict xb, const T*, const T*) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        spread(X.size(), xb, yb[0]);
    }
    template <class S, class T>
    static void tangent(arg_t<0>, S ext, T* __restrict yd, const T* xd, const T*, const T*) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        yd[0] += sum_n(X.size(), xd);
    }
    /// \endcond
};

/// Σ xᵢ / n over all n entries.
struct mean : full_reduction {
    /// \cond INTERNAL
    static constexpr std::string_view name = "mean";
    static constexpr bool run_time_extents = true;
    static constexpr std::array<std::string_view, 1> adjoint_text{"ȳ/n"};
    template <class T, class N>
    static T inverse_count(N n) {
        return T(scalar_t<T>(1) / scalar_t<T>(std::size_t(n)));
    }
    template <class S, class T>
    static void value(S ext, T* __restrict y, const T* x) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        y[0] = sum_n(X.size(), x) * inverse_count<T>(X.size());
    }
    template <class S, class T>
    static void adjoint(arg_t<0>, S ext, const T* yb, T* __restrict xb, const T*, const T*) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        spread(X.size(), xb, T(yb[0] * inverse_count<T>(X.size())));
    }
    template <class S, class T>
    static void tangent(arg_t<0>, S ext, T* __restrict yd, const T* xd, const T*, const T*) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        yd[0] += sum_n(X.size(), xd) * inverse_count<T>(X.size());
    }
    /// \endcond
};

/// Σ xᵢ².
struct squared_norm : full_reduction {
    /// \cond INTERNAL
    static constexpr std::string_view name = "squared_norm";
    static constexpr bool run_time_extents = true;
    static constexpr std::array<std::string_view, 1> adjoint_text{"2·ȳ·x"};
    template <class S, class T>
    static void value(S ext, T* __restrict y, const T* x) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        y[0] = dot_n(X.size(), x, x);
    }
    template <class S, class T>
    static void adjoint(arg_t<0>, S ext, const T* yb, T* __restrict xb, const T*, const T* x) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        axpy_n(X.size(), xb, T(yb[0] + yb[0]), x);
    }
    template <class S, class T>
    static void tangent(arg_t<0>, S ext, T* __restrict yd, const T* xd, const T*, const T* x) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        const T d = dot_n(X.size(), x, xd);
        yd[0] += d + d;
    }
    /// \endcond
};

/// max and min: the extreme entry, NaN propagating (the binary rules' own selection).
/// The adjoint goes to the entries equal to the result, shared evenly among them.
template <class Pick>
struct extreme : nonempty_reduction {
    /// \cond INTERNAL
    static constexpr std::array<std::string_view, 1> adjoint_text{"ȳ·[x = y]/#{x = y}"};
    template <class S, class T>
    static void value(S ext, T* __restrict y, const T* x) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        T m = x[0];
        for (std::size_t i = 1; i < X.size(); ++i) m = Pick::eval(m, x[i]);
        y[0] = m;
    }
    template <class N, class T>
    static T share(N n, const T* __restrict y, const T* x) {
        using K = scalar_t<T>;
        T count = if_else<T>(x[0] == y[0], K(1), K(0));
        for (std::size_t i = 1; i < n; ++i) count += if_else<T>(x[i] == y[0], K(1), K(0));
        return T(K(1)) / count;
    }
    template <class S, class T>
    static void adjoint(arg_t<0>, S ext, const T* yb, T* __restrict xb, const T* __restrict y, const T* x) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        const T w = yb[0] * share(X.size(), y, x);
        for (std::size_t i = 0; i < X.size(); ++i) xb[i] += if_else<T>(x[i] == y[0], w, scalar_t<T>(0));
    }
    template <class S, class T>
    static void tangent(arg_t<0>, S ext, T* __restrict yd, const T* xd, const T* __restrict y, const T* x) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        const T w = share(X.size(), y, x);
        T t = if_else<T>(x[0] == y[0], xd[0], scalar_t<T>(0));
        for (std::size_t i = 1; i < X.size(); ++i) t += if_else<T>(x[i] == y[0], xd[i], scalar_t<T>(0));
        yd[0] += t * w;
    }
    /// \endcond
};
/// The largest entry (NaN if any entry is NaN).
struct max_entry : extreme<rules::max> {
    /// \cond INTERNAL
    static constexpr std::string_view name = "max";
    static constexpr bool run_time_extents = true;
    /// \endcond
};
/// The smallest entry (NaN if any entry is NaN).
struct min_entry : extreme<rules::min> {
    /// \cond INTERNAL
    static constexpr std::string_view name = "min";
    static constexpr bool run_time_extents = true;
    /// \endcond
};

/// The shift log_sum_exp and softmax subtract: the maximum, or 0 where it is infinite.
template <class N, class T>
inline T stable_shift(N n, const T* x) {
    T m = x[0];
    for (std::size_t i = 1; i < n; ++i) m = rules::max::eval(m, x[i]);
    using std::abs;
    using K = scalar_t<T>;
    return if_else<T>(abs(m) == std::numeric_limits<K>::infinity(), K(0), m);
}

/// log Σ exp(xᵢ), stable; its gradient is softmax(x) = exp(x - y) = eᵢ / S, with
/// eᵢ = exp(xᵢ - shift) and S = Σ eᵢ. The value keeps e and S after its result
/// (`saved_size`), so that the adjoint and the tangent divide once instead of computing
/// the exponentials again: the ADBench GMM's gradient, whose points each end in a
/// log-sum-exp over K components, spent a tenth of its time on those exponentials.
struct log_sum_exp : nonempty_reduction {
    /// \cond INTERNAL
    static constexpr std::string_view name = "log_sum_exp";
    static constexpr bool run_time_extents = true;
    static constexpr std::array<std::string_view, 1> adjoint_text{"ȳ·exp(x - y)"};
    template <std::size_t N>
    static constexpr std::size_t saved_size(const std::array<dims, N>& s) {
        return s[0].size() + 1;
    }
    template <class S, class T>
    static void value(S ext, T* __restrict y, const T* x) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        T* __restrict e = y + 1;
        const T m = stable_shift(X.size(), x);
        for (std::size_t i = 0; i < X.size(); ++i) e[i] = rules::exp::eval(T(x[i] - m));
        const T s = sum_n(X.size(), e);
        e[X.size()] = s;
        y[0] = rules::log::eval(s) + m;
    }
    template <class S, class T>
    static void adjoint(arg_t<0>, S ext, const T* yb, T* __restrict xb, const T* __restrict y, const T*) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        const T* e = y + 1;
        const T w = yb[0] / e[X.size()];
        for (std::size_t i = 0; i < X.size(); ++i) xb[i] += w * e[i];
    }
    template <class S, class T>
    static void tangent(arg_t<0>, S ext, T* __restrict yd, const T* xd, const T* __restrict y, const T*) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        const T* e = y + 1;
        T t = e[0] * xd[0];
        for (std::size_t i = 1; i < X.size(); ++i) t += e[i] * xd[i];
        yd[0] += t / e[X.size()];
    }
    /// \endcond
};

/// softmax over all entries of a vector: yᵢ = exp(xᵢ - m) / Σⱼ exp(xⱼ - m).
/// Adjoint x̄ += y ⊙ (ȳ - ⟨ȳ, y⟩); tangent ẏ += y ⊙ (ẋ - ⟨ẋ, y⟩).
struct softmax {
    /// \cond INTERNAL
    static constexpr std::string_view name = "softmax";
    static constexpr bool run_time_extents = true;
    static constexpr std::array<std::string_view, 1> adjoint_text{"y⊙(ȳ - ⟨ȳ,y⟩)"};
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& operands) {
        return shape_with_arity<1>(operands, [](const auto& s) {
            return s[0].is_vector() && (s[0].is_dynamic() || s[0].size() != 0) ? s[0] : invalid_dims;
        });
    }
    template <class S, class T>
    static void value(S ext, T* __restrict y, const T* x) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        const T m = stable_shift(X.size(), x);
        for (std::size_t i = 0; i < X.size(); ++i) y[i] = rules::exp::eval(T(x[i] - m));
        const T inv = T(scalar_t<T>(1)) / sum_n(X.size(), y);
        for (std::size_t i = 0; i < X.size(); ++i) y[i] *= inv;
    }
    template <class S, class T>
    static void adjoint(arg_t<0>, S ext, const T* yb, T* __restrict xb, const T* __restrict y, const T*) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        const T inner = dot_n(X.size(), yb, y);
        for (std::size_t i = 0; i < X.size(); ++i) xb[i] += y[i] * (yb[i] - inner);
    }
    template <class S, class T>
    static void tangent(arg_t<0>, S ext, T* __restrict yd, const T* xd, const T* __restrict y, const T*) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        const T inner = dot_n(X.size(), xd, y);
        for (std::size_t i = 0; i < X.size(); ++i) yd[i] += y[i] * (xd[i] - inner);
    }
    /// \endcond
};

}  // namespace gradc::rules::arrays

namespace gradc::rules {
// A sum and a mean are linear in their operand.
template <> inline constexpr affinity affine_in<arrays::sum, 0> = affinity::linear;
template <> inline constexpr affinity affine_in<arrays::mean, 0> = affinity::linear;
}  // namespace gradc::rules
