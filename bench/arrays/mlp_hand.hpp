#pragma once
// Hand-written gradients of the MLP: the limit gradc is held to.
//  - batch_gradient: one point per lane (xsimd), the gradient with respect to the inputs
//    by forward and backward loops written out for this network;
//  - eigen_backprop: one point, the gradient with respect to every weight, by
//    backpropagation with Eigen matrices.
#include <array>
#include <cstddef>
#include <vector>

#include <Eigen/Dense>
#include <xsimd/xsimd.hpp>

#include "mlp_data.hpp"

namespace mlp {

template <std::size_t I, std::size_t H>
void batch_gradient(const network<I, H>& net, const std::vector<std::vector<double>>& x, std::vector<double>& value,
                    std::vector<std::vector<double>>& grad) {
    using B = xsimd::batch<double>;
    constexpr std::size_t L = B::size;
    const std::size_t n = value.size();
    for (std::size_t p = 0; p + L <= n; p += L) {  // n is a multiple of L in the benchmark
        std::array<B, I> in;
        for (std::size_t i = 0; i < I; ++i) in[i] = B::load_unaligned(x[i].data() + p);
        std::array<B, H> h1, h2;
        for (std::size_t r = 0; r < H; ++r) {
            B a(net.l1.b[r]);
            for (std::size_t c = 0; c < I; ++c) a = xsimd::fma(B(net.l1.w[r * I + c]), in[c], a);
            h1[r] = xsimd::tanh(a);
        }
        B y(0.0);
        std::array<B, H> g2;
        for (std::size_t r = 0; r < H; ++r) {
            B a(net.l2.b[r]);
            for (std::size_t c = 0; c < H; ++c) a = xsimd::fma(B(net.l2.w[r * H + c]), h1[c], a);
            h2[r] = xsimd::tanh(a);
            y = xsimd::fma(B(net.out[r]), h2[r], y);
            g2[r] = B(net.out[r]) * (B(1.0) - h2[r] * h2[r]);
        }
        std::array<B, H> g1;
        for (std::size_t c = 0; c < H; ++c) {
            B s(0.0);
            for (std::size_t r = 0; r < H; ++r) s = xsimd::fma(B(net.l2.w[r * H + c]), g2[r], s);
            g1[c] = s * (B(1.0) - h1[c] * h1[c]);
        }
        y.store_unaligned(value.data() + p);
        for (std::size_t c = 0; c < I; ++c) {
            B s(0.0);
            for (std::size_t r = 0; r < H; ++r) s = xsimd::fma(B(net.l1.w[r * I + c]), g1[r], s);
            s.store_unaligned(grad[c].data() + p);
        }
    }
}

/// Every weight's gradient at one point x: dW1, db1, dW2, db2, dout (row-major).
template <std::size_t I, std::size_t H>
double eigen_backprop(const network<I, H>& net, const std::array<double, I>& x, std::vector<double>& grad) {
    using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using Vec = Eigen::VectorXd;
    const Eigen::Map<const Mat> W1(net.l1.w.data(), H, I), W2(net.l2.w.data(), H, H);
    const Eigen::Map<const Vec> b1(net.l1.b.data(), H), b2(net.l2.b.data(), H), u(net.out.data(), H);
    const Eigen::Map<const Vec> xv(x.data(), I);
    const Vec h1 = (W1 * xv + b1).array().tanh().matrix();
    const Vec h2 = (W2 * h1 + b2).array().tanh().matrix();
    const double y = u.dot(h2);
    const Vec g2 = (u.array() * (1 - h2.array().square())).matrix();
    const Vec g1 = ((W2.transpose() * g2).array() * (1 - h1.array().square())).matrix();
    grad.resize(H * I + H + H * H + H + H);
    Eigen::Map<Mat>(grad.data(), H, I) = g1 * xv.transpose();
    Eigen::Map<Vec>(grad.data() + H * I, H) = g1;
    Eigen::Map<Mat>(grad.data() + H * I + H, H, H) = g2 * h1.transpose();
    Eigen::Map<Vec>(grad.data() + H * I + H + H * H, H) = g2;
    Eigen::Map<Vec>(grad.data() + H * I + 2 * H + H * H, H) = h2;
    return y;
}

}  // namespace mlp
