// Per-step outputs, gradc::emit(next, y) (include/gradc/loops/emit.hpp,
// include/gradc/loops/loop_states.hpp):
//  - the linear recurrence c <- a c + b emitting its incoming carry: the final carry and
//    every y against the closed form, the gradient of Σ ys + final against its closed
//    form and central differences, the JVP against the gradient, the Hessian against
//    differences of the gradient;
//  - a scan emitting running sums against gradc::cumsum (values and gradients);
//  - a vector carry emitting vectors (ys a matrix, one row per step) against the final
//    carries of the same loop stopped after each step, fixed and run-time extents, the
//    gradient against central differences;
//  - zero steps (final = init, no ys) and a kernel with both outputs;
//  - gradc::emit(next) (the carries, read from the states) against emit(next, next);
//  - the final carry and ys sharing one states loop (gradc::to_string);
//  - stack_over, row(M, 2k + 1) and reshape_as against their closed forms.
// (Variables are taken apart with std::get: clang 14 cannot capture structured
// bindings in the loops' lambdas.)
#include <cmath>
#include <cstddef>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <gradc/gradc.hpp>

#include "approx.hpp"

using gradc::dynamic_extent;
using gradc::test::central_difference;

TEST_CASE("emit: the linear recurrence's states against the closed form", "[loops][emit]") {
    const auto vars = gradc::variables(gradc::scalar, gradc::scalar, gradc::scalar);
    const auto a = std::get<0>(vars);
    const auto b = std::get<1>(vars);
    const auto c0 = std::get<2>(vars);
    for (int n : {0, 1, 2, 9}) {
        INFO("n = " << n);
        const auto out = gradc::loop(n, c0, [=](auto c, auto) { return gradc::emit(a * c + b, c); });
        const auto final_carry = std::get<0>(out);
        const auto ys = std::get<1>(out);
        const auto k = gradc::compile(sum(ys) + final_carry);
        const auto both = gradc::compile(final_carry, ys);
        const double av = 0.8, bv = 0.3, cv = 1.5;
        const auto state = [&](double x, int step) {  // c_step = aᵏ c₀ + b (1 − aᵏ)/(1 − a), at a = x
            return std::pow(x, step) * cv + bv * (1 - std::pow(x, step)) / (1 - x);
        };
        const auto objective = [&](double x) {
            double s = state(x, n);
            for (int j = 0; j < n; ++j) s += state(x, j);
            return s;
        };
        const auto [final_value, ys_value] = both(av, bv, cv);
        CHECK(final_value == Approx(state(av, n)).epsilon(1e-14));
        REQUIRE(ys_value.size() == std::size_t(n));
        for (int j = 0; j < n; ++j) CHECK(ys_value[j] == Approx(state(av, j)).epsilon(1e-14));

        const auto r = k.gradient(av, bv, cv);
        CHECK(r.value == Approx(objective(av)).epsilon(1e-14));
        double dc = 0, db = 0;
        for (int j = 0; j <= n; ++j) {
            dc += std::pow(av, j);
            db += (1 - std::pow(av, j)) / (1 - av);
        }
        CHECK(std::get<2>(r.gradient) == Approx(dc).epsilon(1e-14));
        CHECK(std::get<1>(r.gradient) == Approx(db).margin(1e-15).epsilon(1e-13));
        CHECK(std::get<0>(r.gradient) == Approx(central_difference(objective, av)).margin(1e-8).epsilon(1e-8));
        CHECK(k.jvp(std::tuple{av, bv, cv}, std::tuple{0.5, -1.0, 2.0}).tangent ==
              Approx(0.5 * std::get<0>(r.gradient) - std::get<1>(r.gradient) + 2 * std::get<2>(r.gradient))
                  .epsilon(1e-13));
        const auto H = k.hessian(av, bv, cv);
        const auto up = k.gradient(av + 1e-5, bv, cv), down = k.gradient(av - 1e-5, bv, cv);
        CHECK(H.hessian[0][0] == Approx((std::get<0>(up.gradient) - std::get<0>(down.gradient)) / 2e-5)
                                     .margin(1e-6)
                                     .epsilon(1e-6));
        CHECK(H.hessian[2][0] == Approx((std::get<2>(up.gradient) - std::get<2>(down.gradient)) / 2e-5)
                                     .margin(1e-6)
                                     .epsilon(1e-6));
    }
}

TEST_CASE("emit: a scan's running sums against cumsum", "[loops][emit][scan]") {
    const auto vars = gradc::variables(gradc::vec<dynamic_extent>, gradc::vec<dynamic_extent>);
    const auto x = std::get<0>(vars);
    const auto w = std::get<1>(vars);
    const auto ys = std::get<1>(gradc::scan(0.0, x, [](auto c, auto x_t) { return gradc::emit(c + x_t, c + x_t); }));
    const auto k = gradc::compile(sum(w * sin(ys)));
    const auto reference = gradc::compile(sum(w * sin(gradc::cumsum(x))));
    for (std::size_t n : {1, 4, 11}) {
        std::vector<double> xv(n), wv(n);
        for (std::size_t i = 0; i < n; ++i) {
            xv[i] = 0.3 * double(i) - 0.7;
            wv[i] = 1.0 + 0.1 * double(i);
        }
        const auto r = k.gradient(xv, wv), e = reference.gradient(xv, wv);
        CHECK(r.value == Approx(e.value).epsilon(1e-14));
        for (std::size_t i = 0; i < n; ++i) {
            CHECK(std::get<0>(r.gradient)[i] == Approx(std::get<0>(e.gradient)[i]).epsilon(1e-13));
            CHECK(std::get<1>(r.gradient)[i] == Approx(std::get<1>(e.gradient)[i]).epsilon(1e-13));
        }
    }
}

TEST_CASE("emit: vector outputs stack into a matrix, fixed and run-time extents", "[loops][emit]") {
    const auto check = [](const auto& s, const auto& h0, const auto& h0_value) {
        // h <- tanh(s h + 0.3), emitting s·h: ys row k is s times the carry after k steps.
        const auto step = [=](auto h, auto) { return gradc::emit(tanh(s * h + 0.3), s * h); };
        const auto out = gradc::loop(5, h0, step);
        const auto k = gradc::compile(sum(hadamard(std::get<1>(out), std::get<1>(out))) + sum(std::get<0>(out)));
        const auto both = gradc::compile(std::get<0>(out), std::get<1>(out));
        const double sv = 0.9;
        const auto [final_value, ys_value] = both(sv, h0_value);
        REQUIRE(ys_value.rows == 5);
        REQUIRE(ys_value.cols == 3);
        for (int steps = 0; steps <= 5; ++steps) {
            const auto stopped = gradc::compile(gradc::loop(steps, h0, [=](auto h, auto) { return tanh(s * h + 0.3); }));
            const auto carry = stopped(sv, h0_value);
            for (std::size_t j = 0; j < 3; ++j) {
                if (steps < 5) CHECK(ys_value(std::size_t(steps), j) == Approx(sv * carry[j]).epsilon(1e-15));
                if (steps == 5) CHECK(final_value[j] == carry[j]);
            }
        }
        const auto objective = [&](double x) { return k(x, h0_value); };
        const auto r = k.gradient(sv, h0_value);
        CHECK(r.value == Approx(objective(sv)).epsilon(1e-15));
        CHECK(std::get<0>(r.gradient) == Approx(central_difference(objective, sv)).epsilon(1e-8));
    };
    {
        const auto vars = gradc::variables(gradc::scalar, gradc::vec<dynamic_extent>);
        check(std::get<0>(vars), std::get<1>(vars), std::vector<double>{0.2, -0.4, 1.0});
    }
    {
        const auto vars = gradc::variables(gradc::scalar, gradc::vec<3>);
        check(std::get<0>(vars), std::get<1>(vars), std::array<double, 3>{0.2, -0.4, 1.0});
    }
}

TEST_CASE("emit: zero steps give the init and no outputs", "[loops][emit]") {
    const auto vars = gradc::variables(gradc::vec<dynamic_extent>, gradc::vec<dynamic_extent>);
    const auto c0 = std::get<0>(vars);
    const auto xs = std::get<1>(vars);
    const auto out = gradc::scan(c0, xs, [](auto c, auto x_t) { return gradc::emit(c * x_t, c); });
    const auto k = gradc::compile(std::get<0>(out), std::get<1>(out));
    const auto [final_value, ys_value] = k(std::vector<double>{1.0, 2.0}, std::vector<double>{});
    CHECK(final_value == std::vector<double>{1.0, 2.0});
    CHECK(ys_value.rows == 0);
    const auto g = gradc::compile(sum(std::get<0>(out))).gradient(std::vector<double>{1.0, 2.0}, std::vector<double>{});
    CHECK(std::get<0>(g.gradient) == std::vector<double>{1.0, 1.0});
}

TEST_CASE("stack_over: rows of a matrix from a run-time loop", "[loops][emit]") {
    const auto vars = gradc::variables(gradc::mat<dynamic_extent, 2>, gradc::vec<dynamic_extent>);
    const auto M = std::get<0>(vars);
    const auto v = std::get<1>(vars);
    const auto k = gradc::compile(gradc::stack_over(gradc::rows(M), [=](auto i) { return 2.0 * row(M, i); }),
                                  gradc::stack_over(gradc::size(v), [=](auto i) { return v[i] * v[i]; }));
    const std::vector<double> m{1, 2, 3, 4, 5, 6}, vv{1.5, -2.0};
    const auto [doubled, squares] = k(gradc::mat_view(m, 3, 2), vv);
    REQUIRE(doubled.rows == 3);
    REQUIRE(doubled.cols == 2);
    for (std::size_t e = 0; e < 6; ++e) CHECK(doubled.data[e] == 2 * m[e]);
    CHECK(squares == std::vector<double>{2.25, 4.0});
    const auto g = gradc::compile(sum(hadamard(gradc::stack_over(gradc::rows(M), [=](auto i) { return 2.0 * row(M, i); }), M)))
                       .gradient(gradc::mat_view(m, 3, 2), vv);
    for (std::size_t e = 0; e < 6; ++e) CHECK(std::get<0>(g.gradient).data[e] == 4 * m[e]);
}

TEST_CASE("emit(next): the carries after each step, read from the states", "[loops][emit]") {
    const auto vars = gradc::variables(gradc::scalar, gradc::vec<dynamic_extent>);
    const auto s = std::get<0>(vars);
    const auto h0 = std::get<1>(vars);
    const auto body = [=](auto h, auto) { return tanh(s * h + 0.3); };
    const auto carries = gradc::loop(5, h0, [=](auto h, auto k) { return gradc::emit(body(h, k)); });
    const auto twice = gradc::loop(5, h0, [=](auto h, auto k) { return gradc::emit(body(h, k), body(h, k)); });
    const auto k = gradc::compile(sum(hadamard(std::get<1>(carries), std::get<1>(carries))) + sum(std::get<0>(carries)));
    const auto reference = gradc::compile(sum(hadamard(std::get<1>(twice), std::get<1>(twice))) + sum(std::get<0>(twice)));
    const std::vector<double> h{0.2, -0.4, 1.0};
    const auto r = k.gradient(0.9, h), e = reference.gradient(0.9, h);
    CHECK(r.value == e.value);
    CHECK(std::get<0>(r.gradient) == Approx(std::get<0>(e.gradient)).epsilon(1e-15));
    for (std::size_t i = 0; i < 3; ++i) CHECK(std::get<1>(r.gradient)[i] == Approx(std::get<1>(e.gradient)[i]).epsilon(1e-15));
    const auto both = gradc::compile(std::get<0>(carries), std::get<1>(carries));
    const auto [final_value, ys] = both(0.9, h);
    REQUIRE(ys.rows == 5);
    for (std::size_t j = 0; j < 3; ++j) CHECK(ys(4, j) == final_value[j]);
    const double sv = 0.9;
    CHECK(k.jvp(std::tie(sv, h), std::tuple{1.0, std::vector<double>{0, 0, 0}}).tangent == Approx(std::get<0>(r.gradient)).epsilon(1e-14));
}
TEST_CASE("row with a counter expression, reshape_as", "[loops]") {
    const auto vars = gradc::variables(gradc::mat<dynamic_extent, dynamic_extent>, gradc::mat<dynamic_extent, dynamic_extent>);
    const auto M = std::get<0>(vars);
    const auto L = std::get<1>(vars);
    // Σ_k row(M, 2k+1) over half the rows; M reshaped as L.
    const auto k = gradc::compile(sum(gradc::sum_over(gradc::rows(L), [=](auto i) { return row(M, 2 * i + 1); })) +
                                  sum(hadamard(gradc::reshape_as(M, L), gradc::reshape_as(M, L))));
    const std::vector<double> m{1, 2, 3, 4, 5, 6, 7, 8}, l(8, 0.0);
    const auto g = k.gradient(gradc::mat_view(m, 4, 2), gradc::mat_view(l, 2, 4));
    CHECK(g.value == Approx(3 + 4 + 7 + 8 + 204.0));
    for (std::size_t e = 0; e < 8; ++e) CHECK(std::get<0>(g.gradient).data[e] == Approx(2 * m[e] + ((e / 2) % 2 == 1 ? 1.0 : 0.0)));
    for (std::size_t e = 0; e < 8; ++e) CHECK(std::get<1>(g.gradient).data[e] == 0.0);
    CHECK_THROWS_AS(k(gradc::mat_view(m, 4, 2), gradc::mat_view(l, 3, 2)), gradc::Error);
}
TEST_CASE("emit: the final carry and ys share one states loop", "[loops][emit]") {
    // No literal in the loop (its count is an extent): one loop_states node, read by
    // both the final carry and the ys loop (gradc::to_string lists it once).
    const auto vars = gradc::variables(gradc::scalar, gradc::vec<dynamic_extent>);
    const auto a = std::get<0>(vars);
    const auto xs = std::get<1>(vars);
    const auto out = gradc::scan(a, xs, [=](auto c, auto x) { return gradc::emit(a * c + x, sin(c)); });
    const std::string program = gradc::to_string(gradc::compile(std::get<0>(out) + sum(std::get<1>(out))));
    std::size_t nodes = 0;
    for (std::size_t p = program.find("= loop_states("); p != std::string::npos; p = program.find("= loop_states(", p + 1))
        ++nodes;
    CHECK(nodes == 1);
    CHECK(program.find("loop_invariant") == std::string::npos);
}
