#pragma once
/// \file
/// Second order of array kernels, as check/second_order.hpp for scalar kernels, with
/// points given as tuples of the kernel's arguments (check/arrays.hpp):
///  - `gradc::check::gradgradcheck(k, points, opts)`: for a kernel with one scalar output,
///    `hessian` (every entry over the wrt entries, and exact symmetry) against central
///    differences of the (first-order, already checked) gradient, `hvp` along every unit
///    vector and one mixed direction, and `hessian_batch` and `hvp_batch` with the points
///    repeated over two whole SIMD batches and a tail;
///  - `gradc::check::cross_hessian(e, points, opts)`: the compiled Hessian against the
///    dynamic engine's `autograd::functional::hessian` of the same expression, each array
///    operation as the tensor operations of check/array_tensor_ops.hpp.
/// Reports name the point and the two wrt entries (variable and entry) that disagree.

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include <gradc/autograd/functional.hpp>
#include <gradc/check/arrays.hpp>
#include <gradc/check/second_order.hpp>

namespace gradc::check {

namespace detail {

/// Wrt entry w of an array kernel as (variable, entry).
template <class K>
std::pair<std::size_t, std::size_t> wrt_entry(std::size_t w) {
    for (std::size_t j = 0; j < K::wrt_count; ++j) {
        if (w < K::wrt_shape(j).size()) return {K::wrt_variables[j], w};
        w -= K::wrt_shape(j).size();
    }
    return {K::arity, 0};
}
template <class K>
std::string wrt_pair(std::size_t a, std::size_t b) {
    const auto [va, ea] = wrt_entry<K>(a);
    const auto [vb, eb] = wrt_entry<K>(b);
    return entry_name("variable", va, ea) + ", " + entry_name("variable", vb, eb);
}

/// The entries of a tuple of values (numbers and std::arrays of double), in order.
template <class Tuple>
std::vector<double> flat(const Tuple& t) {
    std::vector<double> f;
    const auto append = [&](const auto& v) {
        f.insert(f.end(), lower::entries_of(v), lower::entries_of(v) + sizeof(v) / sizeof(double));
    };
    std::apply([&](const auto&... v) { (append(v), ...); }, t);
    return f;
}

/// The gradient of an array kernel at a point, flat over its wrt entries.
template <class K, class Tuple>
std::vector<double> flat_gradient(const K& k, const Tuple& x) {
    return flat(std::apply([&](const auto&... a) { return k.gradient(a...); }, x).gradient);
}

}  // namespace detail

/// gradgradcheck of an array kernel with one scalar output at several points.
template <detail::array_kernel K, class... Args>
bool gradgradcheck(const K& k, const std::vector<std::tuple<Args...>>& points, const Options& opt = {}) {
    static_assert(K::output_count == 1 && K::output_shape(0).is_scalar(),
                  "gradc::check::gradgradcheck: the kernel must have one scalar output");
    constexpr std::size_t W = K::wrt_entries, E = K::argument_entries;
    const auto& none = detail::no_coordinates;
    detail::Report rep("gradc::check::gradgradcheck");
    std::vector<std::vector<std::vector<double>>> num(points.size(),
                                                      std::vector<std::vector<double>>(W, std::vector<double>(W)));
    const auto dir = detail::mixed_direction<W>();
    for (std::size_t p = 0; p < points.size(); ++p) {
        const auto& x = points[p];
        for (std::size_t c = 0; c < W; ++c) {
            const auto [v, e] = detail::wrt_entry<K>(c);
            const auto gp = detail::flat_gradient(k, detail::moved(x, v, e, opt.eps));
            const auto gm = detail::flat_gradient(k, detail::moved(x, v, e, -opt.eps));
            for (std::size_t r = 0; r < W; ++r) num[p][r][c] = (gp[r] - gm[r]) / (2 * opt.eps);
        }
        const auto h = std::apply([&](const auto&... a) { return k.hessian(a...); }, x);
        const auto g = detail::flat_gradient(k, x);
        const auto hflat = detail::flat(h.gradient);
        for (std::size_t r = 0; r < W; ++r) {
            rep.compare(hflat[r], g[r], opt, "hessian (gradient)", p, none, detail::wrt_pair<K>(r, r));
            for (std::size_t c = 0; c < W; ++c) {
                rep.compare(h.hessian[r][c], num[p][r][c], opt, "hessian", p, none, detail::wrt_pair<K>(r, c));
                if (h.hessian[r][c] != h.hessian[c][r] && !(std::isnan(h.hessian[r][c]) && std::isnan(h.hessian[c][r])))
                    rep.compare(h.hessian[r][c], h.hessian[c][r], Options{.atol = 0, .rtol = 0}, "hessian (symmetry)", p,
                                none, detail::wrt_pair<K>(r, c));
            }
        }
        for (std::size_t j = 0; j <= W; ++j) {
            std::array<double, W> v{};
            if (j < W) v[j] = 1;
            else v = dir;
            typename K::template gradient_tuple<double> vt;
            lower::scatter_flat(v.data(), vt);
            const auto got = detail::flat(k.hvp(x, vt).hvp);
            for (std::size_t r = 0; r < W; ++r) {
                double expected = 0;
                for (std::size_t q = 0; q < W; ++q) expected += num[p][r][q] * v[q];
                rep.compare(got[r], expected, opt, j < W ? "hvp (unit direction)" : "hvp (mixed direction)", p, none,
                            detail::wrt_pair<K>(r, j < W ? j : r));
            }
        }
    }
    if (!points.empty()) {
        const std::size_t lanes = simd::batch<double>::size;
        const std::size_t n = std::max(points.size(), 2 * lanes + lanes / 2 + 1);
        const auto point_of = [&](std::size_t i) { return i % points.size(); };
        std::vector<std::vector<double>> in(E, std::vector<double>(n)), vin(W, std::vector<double>(n));
        for (std::size_t i = 0; i < n; ++i) {
            std::size_t at = 0;
            for (std::size_t v = 0; v < K::arity; ++v)
                for (std::size_t e = 0; e < K::shapes[v].size(); ++e)
                    in[at++][i] = detail::entry_of(points[point_of(i)], v, e);
            for (std::size_t j = 0; j < W; ++j) vin[j][i] = dir[j];
        }
        std::vector<double> values(n);
        std::vector<std::vector<double>> grad(W, std::vector<double>(n)), hess(W * (W + 1) / 2, std::vector<double>(n)),
            hv(W, std::vector<double>(n));
        const auto lane = [&](const char* call, std::size_t i) {
            return std::string(call) + " (lane " + std::to_string(i % lanes) + " of batch point " + std::to_string(i) + ")";
        };
        k.hessian_batch(in, values, grad, hess);
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t p = point_of(i);
            std::size_t t = 0;
            for (std::size_t a = 0; a < W; ++a)
                for (std::size_t b = a; b < W; ++b)
                    rep.compare(hess[t++][i], num[p][a][b], opt, lane("hessian_batch", i), p, none,
                                detail::wrt_pair<K>(a, b));
        }
        k.hvp_batch(in, vin, values, grad, hv);
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t p = point_of(i);
            for (std::size_t a = 0; a < W; ++a) {
                double expected = 0;
                for (std::size_t q = 0; q < W; ++q) expected += num[p][a][q] * dir[q];
                rep.compare(hv[a][i], expected, opt, lane("hvp_batch", i), p, none, detail::wrt_pair<K>(a, a));
            }
        }
    }
    return rep.finish(opt);
}

/// Evaluates the array expression `e` (one scalar output) through the dynamic engine at
/// each point and compares `autograd::functional::hessian` (reverse over reverse) with the
/// compiled kernel's Hessian over every variable's entries.
template <expr::Expression E, class... Args>
    requires(!std::is_void_v<typename lower::array_set_of<typename E::graph>::type>)
bool cross_hessian(const E& e, const std::vector<std::tuple<Args...>>& points, const Options& opt = {}) {
    static_assert(E::shape.is_scalar(), "gradc::check::cross_hessian of an array expression: a scalar output");
    const auto k = gradc::compile(e);
    using K = std::remove_cvref_t<decltype(k)>;
    using P = typename K::program;
    const auto& none = detail::no_coordinates;
    detail::Report rep("gradc::check::cross_hessian");
    for (std::size_t p = 0; p < points.size(); ++p) {
        const auto& x = points[p];
        const auto h = std::apply([&](const auto&... a) { return k.hessian(a...); }, x);
        const tensor_list leaves = detail::leaf_tensors<K>(x, false);
        std::array<std::size_t, K::arity> offset{};
        for (std::size_t v = 1; v < K::arity; ++v) offset[v] = offset[v - 1] + K::shapes[v - 1].size();
        const auto f = [&](const tensor_list& in) {
            return tensor_list{detail::array_tensors<typename P::flat_type>::get(in, k.literals())[P::output_node(0)]};
        };
        const auto dynamic = autograd::functional::hessian(f, leaves);
        for (std::size_t a = 0; a < K::arity; ++a)
            for (std::size_t b = 0; b < K::arity; ++b) {
                const Tensor block = dynamic[a][b].reshape({-1});
                const std::size_t rows = K::shapes[a].size(), cols = K::shapes[b].size();
                for (std::size_t i = 0; i < rows; ++i)
                    for (std::size_t j = 0; j < cols; ++j)
                        rep.compare(h.hessian[offset[a] + i][offset[b] + j],
                                    block[std::int64_t(i * cols + j)].template item<double>(), opt,
                                    "hessian against the dynamic engine", p, none,
                                    detail::entry_name("variable", a, i) + ", " + detail::entry_name("variable", b, j));
            }
    }
    return rep.finish(opt);
}

}  // namespace gradc::check
