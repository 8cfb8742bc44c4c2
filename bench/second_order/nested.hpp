#pragma once
/// Nested forward mode, the way a user of a forward-mode library gets a Hessian: a number
/// type whose value and derivatives are themselves forward-mode numbers. Each point's
/// inputs are seeded with unit directions at both levels; one pass gives the value, the
/// gradient (outer derivatives' values) and the Hessian (outer derivatives' derivatives).

#include <array>
#include <cstddef>
#include <utility>

#include "../bench.hpp"

namespace bench::nested {

/// Black-Scholes at the n points of in[0..4] (s, k, t, r, v); out[0] value, out[1..5]
/// gradient, out[6..20] the Hessian's upper triangle. Traits: `price(s, k, t, r, v)` (the
/// formula of bench.hpp), `variable(x, j)` seeds direction j at both levels, `value(y)`,
/// `gradient(y, i)`, `hessian(y, i, j)`.
template <class Traits>
void black_scholes_points(const double* const* in, std::size_t n, double* const* out) {
    for (std::size_t p = 0; p < n; ++p) {
        const auto y = Traits::price(Traits::variable(in[0][p], 0), Traits::variable(in[1][p], 1),
                                     Traits::variable(in[2][p], 2), Traits::variable(in[3][p], 3),
                                     Traits::variable(in[4][p], 4));
        out[0][p] = Traits::value(y);
        std::size_t at = 6;
        for (std::size_t i = 0; i < 5; ++i) {
            out[1 + i][p] = Traits::gradient(y, i);
            for (std::size_t j = i; j < 5; ++j) out[at++][p] = Traits::hessian(y, i, j);
        }
    }
}

using points_fn = void (*)(const double* const*, std::size_t, double* const*);
points_fn sacado();  // nullptr when the peer is not built
points_fn ceres();
points_fn eigen();

}  // namespace bench::nested
