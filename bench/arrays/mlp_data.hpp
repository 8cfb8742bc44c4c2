#pragma once
// Weights and points of the MLP benchmark: deterministic, shared by every implementation.
#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

namespace mlp {

inline double weight(std::size_t layer, std::size_t i, std::size_t j) {
    return 0.4 * std::sin(0.37 * double(i) + 0.91 * double(j) + 1.3 * double(layer));
}

/// A dense layer's weights (R×C row-major) and biases.
template <std::size_t R, std::size_t C>
struct layer {
    std::array<double, R * C> w;
    std::array<double, R> b;
    explicit layer(std::size_t index) {
        for (std::size_t r = 0; r < R; ++r) {
            for (std::size_t c = 0; c < C; ++c) w[r * C + c] = weight(index, r, c) / std::sqrt(double(C));
            b[r] = 0.1 * weight(index + 7, r, 0);
        }
    }
};

/// The network I-H-H-1 (two tanh layers, a linear output).
template <std::size_t I, std::size_t H>
struct network {
    layer<H, I> l1{0};
    layer<H, H> l2{1};
    std::array<double, H> out{};
    network() {
        for (std::size_t j = 0; j < H; ++j) out[j] = weight(2, j, 3);
    }
};

/// N points of I inputs, structure of arrays.
template <std::size_t I>
std::vector<std::vector<double>> points(std::size_t n) {
    std::vector<std::vector<double>> x(I, std::vector<double>(n));
    for (std::size_t i = 0; i < I; ++i)
        for (std::size_t p = 0; p < n; ++p) x[i][p] = std::sin(0.013 * double(p) + double(i));
    return x;
}

}  // namespace mlp
