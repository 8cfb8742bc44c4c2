#pragma once
// Arguments for the tests of kernels whose extents are known at run time: n values in
// [-0.65, 0.75], a different sequence for each seed, none of them 0.
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

namespace sample {

inline std::vector<double> values(std::size_t n, std::size_t seed) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = 0.7 * std::sin(0.37 * double(i + 1) + 1.3 * double(seed)) + 0.05;
    return v;
}

/// The first N values as a span of fixed extent: the argument of a fixed kernel beside
/// the run-time one that takes the whole vector.
template <std::size_t N>
std::span<const double, N> fixed(const std::vector<double>& v) {
    return std::span<const double, N>(v.data(), N);
}

}  // namespace sample
