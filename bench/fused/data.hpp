#pragma once
// The benchmark's inputs, the same numbers for gradc and LibTorch: each formula's
// operands as row-major arrays with their shapes, drawn from a fixed seed in ranges where
// the formula is well defined.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "formulas.hpp"

namespace fused_bench {

struct operand {
    std::vector<std::int64_t> shape;
    std::vector<double> values;
};

inline operand uniform(std::vector<std::int64_t> shape, double lo, double hi, std::uint64_t seed) {
    std::int64_t n = 1;
    for (std::int64_t s : shape) n *= s;
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> d(lo, hi);
    operand o{std::move(shape), std::vector<double>(static_cast<std::size_t>(n))};
    for (double& v : o.values) v = d(gen);
    return o;
}

/// The operands of formula F at n points.
template <class F>
std::vector<operand> make_operands(std::int64_t n) {
    if constexpr (std::is_same_v<F, black_scholes>) {
        // Options near the money: far from it, Φ(d) and its derivative underflow to
        // subnormal numbers, whose arithmetic is a hundred times slower on x86 and would
        // time the processor's microcode rather than the libraries.
        return {uniform({n}, 80, 120, 1), uniform({n}, 90, 110, 2), uniform({n}, 0.25, 2, 3), uniform({n}, 0, 0.1, 4),
                uniform({n}, 0.15, 0.45, 5)};
    } else if constexpr (std::is_same_v<F, gelu_bias>) {
        return {uniform({n / 1000, 1000}, -3, 3, 6), uniform({1000}, -0.5, 0.5, 7)};
    } else {
        return {uniform({n}, -3, 3, 8), uniform({}, 0.1, 0.1, 9), uniform({}, 1.3, 1.3, 10)};
    }
}

}  // namespace fused_bench
