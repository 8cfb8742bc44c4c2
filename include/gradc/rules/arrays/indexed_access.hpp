#pragma once
/// \file
/// Reading parts of an array at indices known when the expression is built, not when its
/// type is: `x[i]`, `W(i, j)`, `row(W, i)` and `col(W, j)` with plain integers. The
/// indices are extra operands of the operation: literal nodes, stored with the
/// expression's other literals, so the expression's type is one for every index and a
/// loop over i at run time builds expressions of one type. The kernel reads an index from
/// its literal when it runs; the expression functions checked its range when the node was
/// built (expr/nodes.hpp), and rules/arrays/access.hpp has the forms with indices fixed in
/// the type. Each is a selection like those: the adjoint adds ȳ to the entries read, the
/// tangent reads the same entries of ẋ; an index has no derivative (it is a constant).

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>

#include <gradc/error.hpp>
#include <gradc/rules/arrays/signature.hpp>
#include <gradc/rules/value_traits.hpp>

// Each operation's members are the array-operation contract's, documented once in
// rules/arrays/signature.hpp; the API reference hides them per operation (the INTERNAL
// sections) instead of repeating them.
namespace gradc::rules::arrays {

/// The index an index operand holds. A literal is the same in every lane of a SIMD batch
/// and is the value part of a dual number, so the first lane of the value part is it.
template <class T>
std::size_t index_value(const T& v) {
    if constexpr (std::is_arithmetic_v<T>) {
        return static_cast<std::size_t>(v);
    } else if constexpr (simd_batch<T>) {
        return static_cast<std::size_t>(v.get(0));
    } else {
        return index_value(v.value);  // a dual number: its value part
    }
}

/// The shape of an index operand: a scalar.
constexpr bool is_index_shape(const dims& s) { return s.is_scalar(); }

/// A selection whose source map takes the run-time indices: y[k] = x[Map::source(k, i...)].
/// The value step checks each index against the extents it reads (gradc::Error naming
/// the access, the index and the range): an index made by a loop (`row(W, k)` inside
/// `gradc::sum_over`) or into an array whose extents come with the call is checked only
/// then. The derivative steps run after the value step and do not check again.
template <class Map>
struct indexed_selection {
    /// \cond INTERNAL
    static constexpr bool run_time_extents = true;
    static constexpr std::array<std::string_view, 3> adjoint_text{"ȳ scattered back", "", ""};
    template <class S, class T, class... Index>
    static void value(S ext, T* __restrict y, const T* x, const Index*... index) {
        const auto& X = std::get<1>(ext.all);
        Map::check(X, index_value(*index)...);
        const std::size_t base = Map::base(X, index_value(*index)...);
        const std::size_t step = Map::step(X);
        for (std::size_t k = 0, n = std::get<0>(ext.all).size(); k < n; ++k) y[k] = x[base + k * step];
    }
    /// A selection of consecutive entries (`contiguous`: an entry, a row, a segment) is
    /// read where it is, not copied: its node's value is `view` into its operand's
    /// (lower/array_steps.hpp), and its primal only checks the indices.
    template <class S, class T, class... Index>
    static const T* view(S ext, const T* x, const Index*... index) {
        return x + Map::base(std::get<1>(ext.all), index_value(*index)...);
    }
    template <class S, class T, class... Index>
    static void check_view(S ext, const T*, const Index*... index) {
        Map::check(std::get<1>(ext.all), index_value(*index)...);
    }
    template <class S, class T, class... Index>
    static void adjoint(arg_t<0>, S ext, const T* yb, T* __restrict xb, const T*, const T*, const Index*... index) {
        const auto& X = std::get<1>(ext.all);
        const std::size_t base = Map::base(X, index_value(*index)...);
        const std::size_t step = Map::step(X);
        for (std::size_t k = 0, n = std::get<0>(ext.all).size(); k < n; ++k) xb[base + k * step] += yb[k];
    }
    template <class S, class T, class... Index>
    static void tangent(arg_t<0>, S ext, T* __restrict yd, const T* xd, const T*, const T*, const Index*... index) {
        const auto& X = std::get<1>(ext.all);
        const std::size_t base = Map::base(X, index_value(*index)...);
        const std::size_t step = Map::step(X);
        for (std::size_t k = 0, n = std::get<0>(ext.all).size(); k < n; ++k) yd[k] += xd[base + k * step];
    }
    /// An index (a loop's counter in arithmetic, `segment(v, k * m, m)`) has no derivative.
    template <int K, class S, class T, class... Operands>
        requires(K > 0)
    static void adjoint(arg_t<K>, S, const T*, T* __restrict, const T*, const Operands*...) {}
    template <int K, class S, class T, class... Operands>
        requires(K > 0)
    static void tangent(arg_t<K>, S, T* __restrict, const T*, const T*, const Operands*...) {}
    /// \endcond
};

/// The error of an index out of its range when the kernel runs.
[[noreturn]] inline void index_out_of_range(const char* access, const char* name, std::size_t got, std::size_t bound) {
    throw Error(std::string("gradc kernel: ") + access + ": got " + name + " = " + std::to_string(got) +
                ", expected 0 <= " + name + " < " + std::to_string(bound));
}

/// Entry i of a vector (operands x, i) or entry (i, j) of a matrix (operands W, i, j).
struct element_at : indexed_selection<element_at> {
    /// \cond INTERNAL
    static constexpr std::string_view name = "element";
    static constexpr bool contiguous = true;
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& s) {
        if constexpr (N == 2) {
            return s[0].is_vector() && is_index_shape(s[1]) ? scalar_dims : invalid_dims;
        } else if constexpr (N == 3) {
            return s[0].is_matrix() && is_index_shape(s[1]) && is_index_shape(s[2]) ? scalar_dims : invalid_dims;
        } else {
            return invalid_dims;
        }
    }
    template <class E>
    static void check(const E& X, std::size_t i, std::size_t j = 0) {
        if (i >= std::size_t(X.rows)) index_out_of_range(X.cols == 1 ? "x[i]" : "W(i, j)", "i", i, X.rows);
        if (j >= std::size_t(X.cols)) index_out_of_range("W(i, j)", "j", j, X.cols);
    }
    template <class E>
    static std::size_t base(const E& X, std::size_t i, std::size_t j = 0) {
        return i * X.cols + j;
    }
    template <class E>
    static std::size_t step(const E&) {
        return 0;
    }
    /// \endcond
};

/// Row i of a matrix, as a vector (operands W, i).
struct row_at : indexed_selection<row_at> {
    /// \cond INTERNAL
    static constexpr bool contiguous = true;
    static constexpr std::string_view name = "row";
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& operands) {
        return shape_with_arity<2>(operands, [](const auto& s) {
            return s[0].is_matrix() && is_index_shape(s[1]) ? vector_dims(s[0].cols) : invalid_dims;
        });
    }
    template <class E>
    static void check(const E& X, std::size_t i) {
        if (i >= std::size_t(X.rows)) index_out_of_range("row(W, i)", "i", i, X.rows);
    }
    template <class E>
    static std::size_t base(const E& X, std::size_t i) {
        return i * X.cols;
    }
    template <class E>
    static std::size_t step(const E&) {
        return 1;
    }
    /// \endcond
};

/// Column j of a matrix, as a vector (operands W, j).
struct col_at : indexed_selection<col_at> {
    /// \cond INTERNAL
    static constexpr bool contiguous = false;
    static constexpr std::string_view name = "col";
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& operands) {
        return shape_with_arity<2>(operands, [](const auto& s) {
            return s[0].is_matrix() && is_index_shape(s[1]) ? vector_dims(s[0].rows) : invalid_dims;
        });
    }
    template <class E>
    static void check(const E& X, std::size_t j) {
        if (j >= std::size_t(X.cols)) index_out_of_range("col(W, j)", "j", j, X.cols);
    }
    template <class E>
    static std::size_t base(const E&, std::size_t j) {
        return j;
    }
    template <class E>
    static std::size_t step(const E& X) {
        return X.cols;
    }
    /// \endcond
};

/// Entries [offset, offset + n) of a vector (operands x, offset, n): n is a literal, so
/// the result's extent is known when the kernel runs (`result_shape_at`, from the
/// literals' values: lower/run_time_layout.hpp); offset a literal or a loop's counter.
struct segment_at : indexed_selection<segment_at> {
    /// \cond INTERNAL
    static constexpr bool contiguous = true;
    static constexpr std::string_view name = "segment";
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& operands) {
        return shape_with_arity<3>(operands, [](const auto& s) {
            return s[0].is_vector() && is_index_shape(s[1]) && is_index_shape(s[2]) ? vector_dims(dynamic_extent)
                                                                                     : invalid_dims;
        });
    }
    /// With the literal operands' values (NaN for an operand that is not a literal).
    template <std::size_t N>
    static constexpr dims result_shape_at(const std::array<dims, N>& operands, const std::array<double, N>& literal) {
        const dims y = result_shape<N>(operands);
        if constexpr (N == 3) {
            if (!y.valid() || !(literal[2] >= 0)) return invalid_dims;  // n must be a literal
            const std::size_t n = std::size_t(literal[2]);
            if (literal[1] == literal[1] && operands[0].rows != dynamic_extent &&
                std::size_t(literal[1]) + n > operands[0].rows)
                return invalid_dims;
            return vector_dims(n);
        } else {
            return invalid_dims;
        }
    }
    template <class E>
    static void check(const E& X, std::size_t offset, std::size_t n) {
        if (offset + n > std::size_t(X.rows)) index_out_of_range("segment(x, offset, n)", "offset + n", offset + n, X.rows + 1);
    }
    template <class E>
    static std::size_t base(const E&, std::size_t offset, std::size_t) {
        return offset;
    }
    template <class E>
    static std::size_t step(const E&) {
        return 1;
    }
    /// \endcond
};

}  // namespace gradc::rules::arrays
