#pragma once
/// \file
/// Naming shapes in compile-time errors. A static_assert message cannot print numbers,
/// so each shape check is written `static_assert(ok || shapes_are<a, b>::fine, "...")`:
/// when it fails, the compiler shows `shapes_are<{4, 3, matrix}, {4, 1, vector}>` beside
/// the message, which says in words what the operation needs.

#include <gradc/expr/shape.hpp>

namespace gradc::expr {

/// Never true: named in the static_assert of a shape error so that the compiler's message
/// lists the operands' shapes (`shapes_are<{4, 3, matrix}, {4, 1, vector}>`).
template <dims... Shapes>
struct shapes_are {
    static constexpr bool fine = false;  ///< Always false.
};

}  // namespace gradc::expr
