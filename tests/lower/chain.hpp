#pragma once
// An expression of N levels, each level made from the one before by Step: a recursion of
// the test's, so that N statements are written in one line (the library's lowering does
// not recurse).

#include <cstddef>
#include <type_traits>

namespace gradc::test {

/// step(step(... step(y, level N) ..., level 2), level 1): Step receives the level as a
/// std::integral_constant.
template <std::size_t N, class Y, class Step>
auto repeat_levels(const Y& y, const Step& step) {
    if constexpr (N == 0) {
        return y;
    } else {
        return repeat_levels<N - 1>(step(y, std::integral_constant<std::size_t, N>{}), step);
    }
}

}  // namespace gradc::test
