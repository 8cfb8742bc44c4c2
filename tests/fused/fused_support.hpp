#pragma once
// Shared by the fused-kernel tests: the kernels, inputs of every layout, and the
// comparison of a fused operation with the same expression run as separate dynamic-mode
// operations (gradc::autograd::fusion::kernel_outputs: the kernel's own nodes, each a
// tensor operation).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC optimize("no-tree-slp-vectorize")
#endif

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <gradc/autograd.hpp>
#include <gradc/check/gradcheck.hpp>
#include <gradc/gradc.hpp>

namespace fused_test {

using gradc::Tensor;
using gradc::tensor_list;

inline std::vector<double> values(const Tensor& t) {
    const Tensor c = t.detach().contiguous().to(gradc::kFloat64);
    const double* p = c.data_ptr<double>();
    return std::vector<double>(p, p + c.numel());
}

/// Agreement to a few units in the last place of the lane type, relative to the larger
/// magnitude (and to 1, for values that cancel to near zero); `terms` widens it for
/// gradients summed over broadcast dimensions in another order.
inline void check_close(const Tensor& fused, const Tensor& unfused, const std::string& what, double terms = 1) {
    INFO(what);
    REQUIRE(fused.defined());
    REQUIRE(unfused.defined());
    REQUIRE(fused.sizes() == unfused.sizes());
    CHECK(fused.dtype() == unfused.dtype());
    const double eps = fused.dtype() == gradc::kFloat32 ? std::numeric_limits<float>::epsilon()
                                                         : std::numeric_limits<double>::epsilon();
    const auto a = values(fused), b = values(unfused);
    std::size_t bad = 0;
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double scale = std::max({std::abs(a[i]), std::abs(b[i]), 1.0});
        const double err = std::abs(a[i] - b[i]) / (scale * eps);
        worst = std::max(worst, err);
        if (!(err <= 8 * terms)) ++bad;
    }
    INFO("worst difference: " << worst << " units of the last place; elements that differ by more: " << bad);
    CHECK(bad == 0);
}

/// The unfused expression: the same kernel's nodes as dynamic-mode operations.
template <class K>
tensor_list unfused(const K& k, const tensor_list& inputs) {
    return gradc::autograd::fusion::kernel_outputs(k, inputs);
}

/// A leaf copy of `t` (same values and layout) that requires grad.
inline Tensor leaf_like(const Tensor& t) { return t.detach().requires_grad_(); }

/// Random values of the given shape and dtype laid out in one of several ways:
/// contiguous, transposed (a permuted view), every other element (a strided slice),
/// or expanded from a smaller tensor (stride 0).
enum class layout { contiguous, transposed, sliced, expanded };

inline Tensor make_input(const gradc::Shape& sizes, gradc::ScalarType dtype, layout how, double lo = -1.5, double hi = 1.5) {
    const auto spread = [&](const gradc::Shape& s) {
        return (gradc::rand(s, gradc::dtype(gradc::kFloat64)) * (hi - lo) + lo).to(dtype);
    };
    if (sizes.size() < 2 || how == layout::contiguous) return spread(sizes);
    gradc::Shape s = sizes;
    switch (how) {
        case layout::transposed: {
            std::swap(s[0], s[1]);
            return spread(s).transpose(0, 1);
        }
        case layout::sliced: {
            s.back() *= 2;
            return spread(s).slice(static_cast<std::int64_t>(s.size()) - 1, 0, std::nullopt, 2);
        }
        case layout::expanded: {
            gradc::Shape one = sizes;
            one[0] = 1;
            return spread(one).expand(sizes);
        }
        default: return spread(sizes);
    }
}

}  // namespace fused_test
