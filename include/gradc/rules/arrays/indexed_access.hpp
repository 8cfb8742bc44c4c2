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
#include <string_view>
#include <type_traits>

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
template <class Map>
struct indexed_selection {
    /// \cond INTERNAL
    static constexpr std::array<std::string_view, 3> adjoint_text{"ȳ scattered back", "", ""};
    template <dims Y, dims X, dims... I, class T, class... Index>
    static void value(sig<Y, X, I...>, T* __restrict y, const T* x, const Index*... index) {
        const std::size_t base = Map::template base<X>(index_value(*index)...);
        for (std::size_t k = 0; k < Y.size(); ++k) y[k] = x[base + k * Map::template step<X>()];
    }
    template <dims Y, dims X, dims... I, class T, class... Index>
    static void adjoint(arg_t<0>, sig<Y, X, I...>, const T* yb, T* __restrict xb, const T*, const T*,
                        const Index*... index) {
        const std::size_t base = Map::template base<X>(index_value(*index)...);
        for (std::size_t k = 0; k < Y.size(); ++k) xb[base + k * Map::template step<X>()] += yb[k];
    }
    template <dims Y, dims X, dims... I, class T, class... Index>
    static void tangent(arg_t<0>, sig<Y, X, I...>, T* __restrict yd, const T* xd, const T*, const T*,
                        const Index*... index) {
        const std::size_t base = Map::template base<X>(index_value(*index)...);
        for (std::size_t k = 0; k < Y.size(); ++k) yd[k] += xd[base + k * Map::template step<X>()];
    }
    /// \endcond
};

/// Entry i of a vector (operands x, i) or entry (i, j) of a matrix (operands W, i, j).
struct element_at : indexed_selection<element_at> {
    /// \cond INTERNAL
    static constexpr std::string_view name = "element";
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
    template <dims X>
    static constexpr std::size_t base(std::size_t i, std::size_t j = 0) {
        return i * X.cols + j;
    }
    template <dims X>
    static constexpr std::size_t step() {
        return 0;
    }
    /// \endcond
};

/// Row i of a matrix, as a vector (operands W, i).
struct row_at : indexed_selection<row_at> {
    /// \cond INTERNAL
    static constexpr std::string_view name = "row";
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& operands) {
        return shape_with_arity<2>(operands, [](const auto& s) {
            return s[0].is_matrix() && is_index_shape(s[1]) ? vector_dims(s[0].cols) : invalid_dims;
        });
    }
    template <dims X>
    static constexpr std::size_t base(std::size_t i) {
        return i * X.cols;
    }
    template <dims X>
    static constexpr std::size_t step() {
        return 1;
    }
    /// \endcond
};

/// Column j of a matrix, as a vector (operands W, j).
struct col_at : indexed_selection<col_at> {
    /// \cond INTERNAL
    static constexpr std::string_view name = "col";
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& operands) {
        return shape_with_arity<2>(operands, [](const auto& s) {
            return s[0].is_matrix() && is_index_shape(s[1]) ? vector_dims(s[0].rows) : invalid_dims;
        });
    }
    template <dims X>
    static constexpr std::size_t base(std::size_t j) {
        return j;
    }
    template <dims X>
    static constexpr std::size_t step() {
        return X.cols;
    }
    /// \endcond
};

}  // namespace gradc::rules::arrays
