#pragma once
/// \file
/// What an array operation is. An operation is a stateless type, like a scalar rule
/// (rules/rule.hpp), with
///  - `name`: as printed in lowered programs;
///  - `result_shape<N>(operand shapes)`: its result's shape, or `invalid_dims` for
///    operands it does not take (the expression functions say why in plain words first);
///  - `value(sig<Y, In...>, y, in...)`: the result into y, from the operands' values;
///  - `adjoint(arg<K>, sig<Y, In...>, ȳ, in_k̄, y, in...)`: adds ȳ's contribution to the
///    adjoint of operand K (accumulated in place: a product's adjoint is a product);
///  - `tangent(arg<K>, sig<Y, In...>, ẏ, in_k̇, y, in...)`: adds operand K's tangent's
///    contribution to ẏ;
///  - `adjoint_text[K]`: that adjoint in words, for printed programs;
///  - optional, `saved_size<N>(operand shapes)`: how many values the operation keeps after
///    its result for its own adjoint and tangent (what PyTorch's autograd calls saving
///    an intermediate for backward, "Autograd mechanics", "Saved tensors"). `value`
///    writes them at y + Y.size(); `adjoint` and `tangent` read them there. The lowering
///    reserves them in the node's value range; other nodes never see them.
/// Every array is a pointer to its first value, row-major. An operation that takes
/// extents known only at run time (`run_time_extents = true`) receives its shapes as
/// `shapes<E...>`, one `extents` per array, whose `rows` and `cols` are
/// `std::integral_constant`s for a fixed shape (every loop bound a constant, as with
/// `sig`) and numbers otherwise: one body serves both. The others receive `sig<Y, In...>`,
/// shapes as template arguments, and a kernel with run-time extents does not compile
/// with them (lower/run_time_layout.hpp says so in words). The array an operation writes (y, an operand's
/// adjoint, ẏ) is `__restrict`: it never overlaps what the operation reads (the lowering
/// gives every node its own value and adjoint ranges), and saying so lets the compiler
/// keep the operands in registers instead of reloading them after every store. The value type T is a number or a SIMD batch (one
/// point per lane).

#include <array>
#include <string_view>
#include <tuple>
#include <type_traits>

#include <gradc/rules/arrays/dims.hpp>
#include <gradc/rules/partial.hpp>
#include <gradc/rules/rule.hpp>

namespace gradc::rules::arrays {

/// The shapes of an operation's result and operands, as template arguments.
template <dims Y, dims... In>
struct sig {};

/// An extent known at compile time, as a type.
template <std::size_t N>
using fixed_extent = std::integral_constant<std::size_t, N>;
/// Whether E is an extent known at compile time.
template <class E>
inline constexpr bool is_fixed_extent = !std::is_same_v<E, std::size_t>;

/// The extents of one array: `fixed_extent<N>` or `std::size_t` each.
template <class R, class C>
struct extents {
    [[no_unique_address]] R rows;  ///< Rows (the length, for a vector).
    [[no_unique_address]] C cols;  ///< Columns (1 for a vector).
    /// The number of entries: a fixed_extent when both extents are.
    constexpr auto size() const {
        if constexpr (is_fixed_extent<R> && is_fixed_extent<C>) {
            return fixed_extent<R::value * C::value>{};
        } else {
            return std::size_t(rows) * std::size_t(cols);
        }
    }
};
/// The extents of a shape fixed at compile time.
template <std::size_t Rows, std::size_t Cols>
using fixed_extents = extents<fixed_extent<Rows>, fixed_extent<Cols>>;
/// Extents known at run time.
using run_time_extents = extents<std::size_t, std::size_t>;

/// The extents of an operation's result and operands (`auto [Y, A, X] = s.all;`).
template <class... E>
struct shapes {
    std::tuple<E...> all;  ///< The result's, then each operand's.
};

/// Whether operation Op takes extents known only at run time (its members take `shapes`).
template <class Op>
concept takes_run_time_extents = requires { requires Op::run_time_extents; };

/// A result_shape for an operation of Arity operands: `shape(operands)` when it is given
/// that many, invalid otherwise.
template <std::size_t Arity, std::size_t N, class Shape>
constexpr dims shape_with_arity(const std::array<dims, N>& s, Shape shape) {
    if constexpr (N != Arity) {
        return invalid_dims;
    } else {
        return shape(s);
    }
}

/// An array operation (a type with `result_shape`), as opposed to a scalar rule.
template <class Op>
concept array_operation = requires { Op::template result_shape<1>(std::array<dims, 1>{}); };

/// How many values operation Op keeps after its result (`saved_size`; 0 without it), for
/// operands of the given shapes.
template <class Op, std::size_t N>
constexpr std::size_t saved_size_of(const std::array<dims, N>& operands) {
    if constexpr (requires { Op::template saved_size<N>(operands); }) {
        return Op::template saved_size<N>(operands);
    } else {
        return 0;
    }
}

}  // namespace gradc::rules::arrays
