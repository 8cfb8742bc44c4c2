#pragma once
/// \file
/// Checking compiled array kernels (variables from `gradc::variables(shape...)`), with
/// points given as tuples of the kernel's arguments (std::array for vectors and
/// matrices, numbers for scalars; for run-time extents std::vector and
/// gradc::matrix_value, check/run_time_gradcheck.hpp):
///  - `gradc::check::gradcheck(k, points, opts)`: for a kernel with one output (scalar or
///    array), every column of the Jacobian by the JVP program against central differences
///    of the value program, every row by the VJP program against the JVP's columns, and
///    the batch value and (for a scalar output) batch gradient against the one-point calls;
///  - `gradc::check::cross(e, points, opts)`: the expression evaluated by the dynamic
///    engine, each array operation as the tensor operation that computes it (matvec as
///    `mv`, log_sum_exp as `logsumexp`, lower_triangular as an `index_select`, ...),
///    against the kernel's value and gradient.
/// Reports name the point, the output entry and the variable entry that disagree.

#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <vector>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/engine.hpp>
#include <gradc/autograd/indexing.hpp>
#include <gradc/autograd/linalg.hpp>
#include <gradc/autograd/reduction.hpp>
#include <gradc/autograd/view.hpp>
#include <gradc/check/array_tensor_ops.hpp>
#include <gradc/check/report.hpp>
#include <gradc/check/run_time_gradcheck.hpp>
#include <gradc/check/static.hpp>
#include <gradc/gradc.hpp>
#include <gradc/lower/array_set.hpp>

namespace gradc::check {

namespace detail {

template <class K>
concept array_kernel = requires { typename K::program::set; K::argument_entries; };

inline const std::array<double, 0> no_coordinates{};

/// The arguments of point p with entry e of variable v moved by h.
template <class Tuple>
Tuple moved(const Tuple& x, std::size_t v, std::size_t e, double h) {
    Tuple y = x;
    std::size_t at = 0;
    std::apply([&](auto&... a) { ((at++ == v ? (void)(lower::entries_of(a)[e] += h) : (void)0), ...); }, y);
    return y;
}

template <class Tuple>
double entry_of(const Tuple& x, std::size_t v, std::size_t e) {
    double r = 0;
    std::size_t at = 0;
    std::apply([&](const auto&... a) { ((at++ == v ? (void)(r = lower::entries_of(a)[e]) : (void)0), ...); }, x);
    return r;
}

/// The variables of an array kernel at point x as tensors of their shapes (0-dim for a
/// scalar, 1-dim for a vector, 2-dim for a matrix), the leaves of the dynamic engine's
/// evaluation in the cross-checks.
template <class K, class Tuple>
tensor_list leaf_tensors(const Tuple& x, bool requires_grad) {
    tensor_list leaves;
    for (std::size_t v = 0; v < K::arity; ++v) {
        const auto s = K::shapes[v];
        std::vector<double> entries(s.size());
        for (std::size_t i = 0; i < s.size(); ++i) entries[i] = entry_of(x, v, i);
        const Shape sizes = s.is_scalar() ? Shape{} : s.is_vector() ? Shape{std::int64_t(s.rows)}
                                                                    : Shape{std::int64_t(s.rows), std::int64_t(s.cols)};
        leaves.push_back(from_vector(entries, sizes, TensorOptions().dtype(kDouble).requires_grad(requires_grad)));
    }
    return leaves;
}

}  // namespace detail

namespace detail {

/// gradcheck of a kernel of fixed extents (see `gradcheck`).
template <class K, class... Args>
bool fixed_gradcheck(const K& k, const std::vector<std::tuple<Args...>>& points, const Options& opt) {
    constexpr std::size_t M = K::output_shape(0).size();
    using detail::entry_name;
    detail::Report rep("gradc::check::gradcheck");
    const auto& none = detail::no_coordinates;
    auto value = [&](const std::tuple<Args...>& x) {
        const auto y = std::apply([&](const auto&... a) { return k(a...); }, x);
        std::array<double, M> r;
        for (std::size_t i = 0; i < M; ++i) r[i] = lower::entries_of(y)[i];
        return r;
    };
    for (std::size_t p = 0; p < points.size(); ++p) {
        const auto& x = points[p];
        std::vector<std::array<double, M>> columns;  // J's columns, one per wrt entry
        for (std::size_t j = 0; j < K::wrt_count; ++j) {
            const std::size_t v = K::wrt_variables[j];
            for (std::size_t e = 0; e < K::wrt_shape(j).size(); ++e) {
                typename K::template gradient_tuple<double> t{};
                std::size_t at = 0;
                std::apply([&](auto&... d) { ((at++ == j ? (void)(lower::entries_of(d)[e] = 1) : (void)0), ...); }, t);
                const auto jv = k.jvp(x, t);
                std::array<double, M> col;
                for (std::size_t i = 0; i < M; ++i) col[i] = lower::entries_of(jv.tangent)[i];
                const double h = opt.eps * std::max(1.0, std::abs(detail::entry_of(x, v, e)));
                const auto up = value(detail::moved(x, v, e, h)), down = value(detail::moved(x, v, e, -h));
                for (std::size_t i = 0; i < M; ++i)
                    rep.compare(col[i], (up[i] - down[i]) / (2 * h), opt, "jvp", p, none,
                                entry_name("output", 0, i) + ", " + entry_name("wrt variable", j, e));
                columns.push_back(col);
            }
        }
        // Rows of J: the VJP of each unit weight against the JVP's columns.
        for (std::size_t i = 0; i < M; ++i) {
            std::array<double, M> w{};
            w[i] = 1;
            const auto vj = [&] {
                if constexpr (M == 1) {
                    return k.vjp(x, w[0]);
                } else {
                    return k.vjp(x, w);
                }
            }();
            std::size_t c = 0;
            std::size_t j = 0;
            std::apply(
                [&](const auto&... g) {
                    (
                        [&](const auto& gj) {
                            for (std::size_t e = 0; e < K::wrt_shape(j).size(); ++e)
                                rep.compare(lower::entries_of(gj)[e], columns[c++][i], opt, "vjp", p, none,
                                            entry_name("output", 0, i) + ", " + entry_name("wrt variable", j, e));
                            ++j;
                        }(g),
                        ...);
                },
                vj.gradient);
        }
    }
    // Batch execution: every point in one call (one point per lane, a partial batch).
    const std::size_t n = points.size();
    std::vector<std::vector<double>> in(K::argument_entries, std::vector<double>(n));
    for (std::size_t p = 0; p < n; ++p) {
        std::size_t row = 0;
        for (std::size_t v = 0; v < K::arity; ++v)
            for (std::size_t e = 0; e < K::shapes[v].size(); ++e) in[row++][p] = detail::entry_of(points[p], v, e);
    }
    std::vector<std::vector<double>> values(M, std::vector<double>(n));
    k.value_batch(in, values);
    for (std::size_t p = 0; p < n; ++p) {
        const auto y = value(points[p]);
        for (std::size_t i = 0; i < M; ++i)
            rep.compare(values[i][p], y[i], opt, "value_batch", p, none, entry_name("output", 0, i));
    }
    if constexpr (M == 1 && K::output_shape(0).is_scalar()) {
        std::vector<double> v(n);
        std::vector<std::vector<double>> g(K::wrt_entries, std::vector<double>(n));
        k.gradient_batch(in, v, g);
        for (std::size_t p = 0; p < n; ++p) {
            const auto r = std::apply([&](const auto&... a) { return k.gradient(a...); }, points[p]);
            std::size_t row = 0, j = 0;
            std::apply(
                [&](const auto&... gj) {
                    (
                        [&](const auto& d) {
                            for (std::size_t e = 0; e < K::wrt_shape(j).size(); ++e)
                                rep.compare(g[row++][p], lower::entries_of(d)[e], opt, "gradient_batch", p, none,
                                            entry_name("wrt variable", j, e));
                            ++j;
                        }(gj),
                        ...);
                },
                r.gradient);
        }
    }
    return rep.finish(opt);
}

}  // namespace detail

/// gradcheck of an array kernel at several points; true when every point passes.
template <detail::array_kernel K, class... Args>
bool gradcheck(const K& k, const std::vector<std::tuple<Args...>>& points, const Options& opt = {}) {
    static_assert(K::output_count == 1, "gradc::check::gradcheck of an array kernel: one output (scalar or array)");
    static_assert(sizeof...(Args) == K::arity, "gradc::check::gradcheck: one argument per variable in each point");
    if constexpr (K::layout.has_dynamic) {
        return detail::run_time_gradcheck(k, points, opt);  // check/run_time_gradcheck.hpp
    } else {
        return detail::fixed_gradcheck(k, points, opt);
    }
}

/// Evaluates the array expression `e` through the dynamic engine at each point and
/// compares its value and its gradient (reverse mode) with the compiled kernel's.
template <expr::Expression E, class... Args>
    requires(!std::is_void_v<typename lower::array_set_of<typename E::graph>::type>)
bool cross(const E& e, const std::vector<std::tuple<Args...>>& points, const Options& opt = {}) {
    static_assert(E::shape.is_scalar(), "gradc::check::cross of an array expression: a scalar output");
    const auto k = gradc::compile(e);
    using K = std::remove_cvref_t<decltype(k)>;
    using P = typename K::program;
    const auto& none = detail::no_coordinates;
    detail::Report rep("gradc::check::cross");
    for (std::size_t p = 0; p < points.size(); ++p) {
        const auto& x = points[p];
        const auto r = std::apply([&](const auto&... a) { return k.gradient(a...); }, x);
        const tensor_list leaves = detail::leaf_tensors<K>(x, true);
        const tensor_list nodes = detail::array_tensors<typename P::flat_type>::get(leaves, k.literals());
        const Tensor& y = nodes[P::output_node(0)];
        rep.compare(y.template item<double>(), r.value, opt, "dynamic value", p, none, detail::out(0));
        const tensor_list dy = autograd::grad({y}, leaves, {}, /*retain_graph=*/false, false, /*allow_unused=*/true);
        std::size_t j = 0;
        std::apply(
            [&](const auto&... gj) {
                (
                    [&](const auto& g) {
                        const Tensor d = dy[j].defined() ? dy[j].reshape({-1}) : Tensor();
                        for (std::size_t i = 0; i < K::shapes[j].size(); ++i)
                            rep.compare(d.defined() ? d[std::int64_t(i)].template item<double>() : 0.0,
                                        lower::entries_of(g)[i], opt, "dynamic gradient", p, none,
                                        detail::entry_name("variable", j, i));
                        ++j;
                    }(gj),
                    ...);
            },
            r.gradient);
    }
    return rep.finish(opt);
}

}  // namespace gradc::check
