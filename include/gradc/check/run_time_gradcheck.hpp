#pragma once
/// \file
/// `gradc::check::gradcheck` of a kernel with run-time extents (check/arrays.hpp calls
/// it): each point a tuple of the kernel's arguments, a number for a scalar, a
/// `std::vector<double>` for a vector and a `gradc::matrix_value<double>` for a matrix,
/// whose extents are the point's. Every column of the Jacobian by the JVP program
/// against central differences of the value program, and every row by the VJP program
/// against the JVP's columns, as for fixed extents. Such a kernel has no batch calls
/// yet, so the batch comparisons of fixed kernels are not made.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <gradc/check/report.hpp>
#include <gradc/lower/array_results.hpp>

namespace gradc::check::detail {

inline std::string entry_name(const char* what, std::size_t index, std::size_t e) {
    return std::string(what) + " " + std::to_string(index) + " entry " + std::to_string(e);
}

/// The number of entries of a value of a run-time kernel's point or result (its
/// entries are `lower::entries_of`).
template <class V>
std::size_t run_time_size(const V& v) {
    if constexpr (std::is_arithmetic_v<V>) {
        return 1;
    } else if constexpr (requires { v.data.size(); }) {
        return v.data.size();
    } else {
        return v.size();
    }
}
template <class V>
std::vector<double> run_time_flat(const V& v) {
    const double* p = lower::entries_of(v);
    return std::vector<double>(p, p + run_time_size(v));
}

template <class K, class... Args>
bool run_time_gradcheck(const K& k, const std::vector<std::tuple<Args...>>& points, const Options& opt) {
    static_assert(((std::is_arithmetic_v<Args> || std::is_same_v<Args, std::vector<double>> ||
                    std::is_same_v<Args, matrix_value<double>>) && ...),
                  "gradc::check::gradcheck of a kernel with run-time extents: give each point's arguments as "
                  "numbers, std::vector<double> for vectors and gradc::matrix_value<double> for matrices");
    using point = std::tuple<Args...>;
    Report rep("gradc::check::gradcheck");
    const std::array<double, 0> none{};
    auto value = [&](const point& x) { return run_time_flat(std::apply([&](const auto&... a) { return k(a...); }, x)); };
    auto moved = [](point x, std::size_t v, std::size_t e, double h) {
        std::size_t at = 0;
        std::apply([&](auto&... a) { ((at++ == v ? (void)(lower::entries_of(a)[e] += h) : (void)0), ...); }, x);
        return x;
    };
    for (std::size_t p = 0; p < points.size(); ++p) {
        const point& x = points[p];
        const std::vector<double> y = value(x);
        const std::size_t M = y.size();
        std::vector<std::vector<double>> columns;  // J's columns, one per wrt entry
        [&]<std::size_t... j>(std::index_sequence<j...>) {
            auto column_of = [&]<std::size_t J>(std::integral_constant<std::size_t, J>) {
                constexpr std::size_t v = K::wrt_variables[J];
                for (std::size_t e = 0; e < run_time_size(std::get<v>(x)); ++e) {
                    // Tangents of every wrt variable's extents, zero but entry e of variable J.
                    auto tangent_of = [&]<std::size_t I>(std::integral_constant<std::size_t, I>) {
                        auto t = std::get<K::wrt_variables[I]>(x);
                        double* q = lower::entries_of(t);
                        std::fill(q, q + run_time_size(t), 0.0);
                        if (I == J) q[e] = 1;
                        return t;
                    };
                    const auto jv = k.jvp(x, std::make_tuple(tangent_of(std::integral_constant<std::size_t, j>{})...));
                    const std::vector<double> column = run_time_flat(jv.tangent);
                    const double h = opt.eps * std::max(1.0, std::abs(lower::entries_of(std::get<v>(x))[e]));
                    const auto up = value(moved(x, v, e, h)), down = value(moved(x, v, e, -h));
                    for (std::size_t i = 0; i < M; ++i)
                        rep.compare(column[i], (up[i] - down[i]) / (2 * h), opt, "jvp", p, none,
                                    entry_name("output", 0, i) + ", " + entry_name("wrt variable", J, e));
                    columns.push_back(column);
                }
            };
            (column_of(std::integral_constant<std::size_t, j>{}), ...);
        }(std::make_index_sequence<K::wrt_count>{});
        // Rows of J: the VJP of each unit weight against the JVP's columns.
        for (std::size_t i = 0; i < M; ++i) {
            std::vector<double> w(M, 0.0);
            w[i] = 1;
            const auto vj = [&] {
                if constexpr (K::output_shape(0).is_scalar()) {
                    return k.vjp(x, w[0]);
                } else {
                    return k.vjp(x, w);  // a matrix output's weights may come flat, row-major
                }
            }();
            std::size_t c = 0, j = 0;
            std::apply(
                [&](const auto&... g) {
                    (
                        [&](const auto& gj) {
                            const std::vector<double> entries = run_time_flat(gj);
                            for (std::size_t e = 0; e < entries.size(); ++e)
                                rep.compare(entries[e], columns[c++][i], opt, "vjp", p, none,
                                            entry_name("output", 0, i) + ", " + entry_name("wrt variable", j, e));
                            ++j;
                        }(g),
                        ...);
                },
                vj.gradient);
        }
    }
    return rep.finish(opt);
}

}  // namespace gradc::check::detail
