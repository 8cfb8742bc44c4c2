// Reverse mode by binomial checkpoints, gradc::checkpoints{s}
// (include/gradc/loops/checkpoints.hpp, include/gradc/loops/chained_loop.hpp):
//  - the schedule (gradc::loops::binomial_reverse, which the loops run): every primal
//    evaluation counted against revolve's numforw (written here as the oracle) plus one
//    per step, numforw against an exhaustive search over every split, for 1 to 60 steps
//    and 1 to 7 checkpoints and four long loops; steps reversed once each, last first;
//    slots within the checkpoints, the init's never overwritten;
//  - kernels: gradients and Hessians of gradc::loop, gradc::scan and gradc::while_loop
//    with 1, 2, 3, 4, 6, n − 1, n and more checkpoints, bit for bit equal to those of the
//    same loop storing every step (each step's adjoint runs on the same values in the
//    same order); batch gradients too;
//  - s < 1 throws gradc::Error.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <gradc/gradc.hpp>

#include "error_message.hpp"

using gradc::dynamic_extent;
using sample::error_of;

namespace {

/// The fewest forward steps that reverse l steps with c checkpoints (the start's among
/// them), every split tried (a step's own run before its adjoint not counted).
std::size_t exhaustive(std::size_t l, std::size_t c, std::map<std::pair<std::size_t, std::size_t>, std::size_t>& memo) {
    if (l <= 1) return 0;
    if (c == 1) return l * (l - 1) / 2;
    const auto key = std::pair{l, c};
    if (const auto found = memo.find(key); found != memo.end()) return found->second;
    std::size_t best = SIZE_MAX;
    for (std::size_t m = 1; m < l; ++m) best = std::min(best, m + exhaustive(l - m, c - 1, memo) + exhaustive(m, c, memo));
    return memo[key] = best;
}

/// revolve's numforw (ADOL-C's revolve.c): the forward steps of an optimal schedule of
/// l steps with s checkpoints, r·l − β(s + 1, r − 1), r the least with β(s, r) ≥ l,
/// β(s, r) = C(s + r, s).
std::size_t numforw(std::size_t l, std::size_t s) {
    const auto beta = [](std::size_t c, long r) -> std::size_t {
        if (r < 0) return 0;
        double b = 1;  // C(c + r, c), exact in a double at these sizes
        for (long i = 1; i <= r; ++i) b = b * double(c + std::size_t(i)) / double(i);
        return std::size_t(std::llround(b));
    };
    long r = 0;
    while (beta(s, r) < l) ++r;
    return std::size_t(r) * l - beta(s + 1, r - 1);
}

/// What binomial_reverse does for l steps and c checkpoints: every evaluation of a
/// step's primal counted, and the checks that it reverses each step once, from the last
/// to the first, and uses slots 0 … c − 1 only, never overwriting the init's.
struct schedule_run {
    std::size_t primal_steps = 0;
    bool in_order = true, slots_in_range = true;
};
schedule_run run_schedule(std::size_t l, std::size_t c) {
    schedule_run run;
    std::vector<gradc::loops::pending_range> pending(c);
    std::vector<std::size_t> slot_step(c, SIZE_MAX);  // the step whose carry each slot holds
    slot_step[0] = 0;
    std::size_t next = l;  // the step to reverse next, plus one
    gradc::loops::binomial_reverse(
        l, c, pending.data(),
        [&](std::size_t from, std::size_t a, std::size_t k, std::size_t into) {
            run.slots_in_range = run.slots_in_range && from < c && into >= 1 && into < c && slot_step[from] == a;
            if (into < c) slot_step[into] = k;
            run.primal_steps += k - a;
        },
        [&](std::size_t from, std::size_t a, std::size_t k) {
            run.slots_in_range = run.slots_in_range && from < c && slot_step[from] == a;
            run.in_order = run.in_order && k + 1 == next;
            next = k;
            run.primal_steps += k - a + 1;
        });
    run.in_order = run.in_order && next == 0;
    return run;
}

/// One nonlinear step of a vector state.
template <class A, class C>
auto step(const A& a, const C& c) {
    return 0.9 * c + 0.2 * sin(a * c) * c;
}

/// Two gradient results of a shaped kernel, equal bit for bit.
template <class R>
void check_same(const R& got, const R& expected) {
    CHECK(got.value == expected.value);
    CHECK(got.gradient == expected.gradient);
}

}  // namespace

TEST_CASE("checkpoints: the schedule runs revolve's fewest forward steps", "[loops][checkpoints]") {
    // Every primal evaluation counted: numforw's forward steps, plus each step run once
    // before its adjoint (numforw(l, s) counts the first sweep's l − 1 steps to the last
    // but not the l steps run to record their adjoints).
    std::map<std::pair<std::size_t, std::size_t>, std::size_t> memo;
    for (std::size_t l = 1; l <= 60; ++l) {
        for (std::size_t c = 1; c <= 7; ++c) {
            INFO("l = " << l << ", checkpoints = " << c);
            const auto run = run_schedule(l, c);
            CHECK(run.in_order);
            CHECK(run.slots_in_range);
            CHECK(run.primal_steps == numforw(l, c) + l);
            CHECK(numforw(l, c) == exhaustive(l, c, memo));
            CHECK(gradc::loops::fewest_forward_steps(l, c) == numforw(l, c));
        }
    }
    for (const auto& [l, c] : {std::pair<std::size_t, std::size_t>{1000, 2}, {2000, 11}, {10000, 3}, {5000, 51}}) {
        INFO("l = " << l << ", checkpoints = " << c);
        const auto run = run_schedule(l, c);
        CHECK(run.in_order);
        CHECK(run.slots_in_range);
        CHECK(run.primal_steps == numforw(l, c) + l);
    }
}

TEST_CASE("checkpoints: loop, scan and while_loop, bit for bit as storing every step", "[loops][checkpoints]") {
    const auto vars = gradc::variables(gradc::scalar, gradc::vec<dynamic_extent>);
    const auto a = std::get<0>(vars);
    const auto y0 = std::get<1>(vars);
    constexpr int n = 37;
    const auto body = [=](auto c, auto) { return step(a, c); };
    const auto stored = gradc::compile(sum(gradc::loop(n, y0, body)));
    const std::vector<double> y{0.3, -0.8, 1.1};
    const auto expected = stored.gradient(1.7, y);
    const auto expected_hessian = stored.hessian(1.7, y);
    for (int s : {1, 2, 3, 4, 6, n - 1, n, 100}) {
        INFO("checkpoints = " << s);
        const auto k = gradc::compile(sum(gradc::loop(n, y0, body, gradc::checkpoints{s})));
        check_same(k.gradient(1.7, y), expected);
        CHECK(k.hessian(1.7, y).hessian.data == expected_hessian.hessian.data);
    }

    // A scan over a vector's entries.
    const auto scan_vars = gradc::variables(gradc::scalar, gradc::vec<dynamic_extent>);
    const auto x = std::get<0>(scan_vars);
    const auto coefficients = std::get<1>(scan_vars);
    const auto horner = [=](auto c, auto q) { return c * x + sin(q); };
    const auto scan_stored = gradc::compile(gradc::scan(0.0, coefficients, horner));
    std::vector<double> q(25);
    for (std::size_t i = 0; i < q.size(); ++i) q[i] = 0.1 * double(i) - 1.0;
    for (int s : {1, 2, 5}) {
        const auto k = gradc::compile(gradc::scan(0.0, coefficients, horner, gradc::checkpoints{s}));
        check_same(k.gradient(0.9, q), scan_stored.gradient(0.9, q));
    }

    // A while loop: the checkpointed one counts its steps first.
    const auto while_vars = gradc::variables(gradc::scalar, gradc::scalar);
    const auto r = std::get<0>(while_vars);
    const auto w0 = std::get<1>(while_vars);
    const auto cond = [](auto c) { return c > 1.0; };
    const auto shrink = [=](auto c) { return r * c + 0.01 * sin(c); };
    const auto while_stored = gradc::compile(gradc::while_loop(w0, cond, shrink));
    for (int s : {1, 2, 3, 50}) {
        const auto k = gradc::compile(gradc::while_loop(w0, cond, shrink, gradc::checkpoints{s}));
        for (double start : {0.5, 3.0, 40.0}) check_same(k.gradient(0.8, start), while_stored.gradient(0.8, start));
    }
}

TEST_CASE("checkpoints: batch gradients of a fixed-extent kernel", "[loops][checkpoints]") {
    const auto vars = gradc::variables(gradc::scalar, gradc::scalar);
    const auto th = std::get<0>(vars);
    const auto x = std::get<1>(vars);
    const auto body = [=](auto c, auto) { return c + 0.05 * sin(th * c); };
    const auto stored = gradc::compile(gradc::loop(30, x, body) * x);
    const auto k = gradc::compile(gradc::loop(30, x, body, gradc::checkpoints{2}) * x);
    constexpr std::size_t points = 13;
    std::vector<double> ths(points), xs(points), v0(points), v1(points), a0(points), a1(points), b0(points), b1(points);
    for (std::size_t i = 0; i < points; ++i) {
        ths[i] = 0.5 + 0.1 * double(i);
        xs[i] = 1.0 - 0.05 * double(i);
    }
    const std::array inputs{std::span<const double>(ths), std::span<const double>(xs)};
    stored.gradient_batch(inputs, std::span<double>(v0), std::array{std::span<double>(a0), std::span<double>(a1)});
    k.gradient_batch(inputs, std::span<double>(v1), std::array{std::span<double>(b0), std::span<double>(b1)});
    CHECK(v0 == v1);
    CHECK(a0 == b0);
    CHECK(a1 == b1);
}

TEST_CASE("checkpoints: fewer than one throws gradc::Error", "[loops][checkpoints]") {
    CHECK(error_of([] { (void)gradc::checkpoints{0}; }) ==
          "gradc::checkpoints{s}: got s = 0, expected s >= 1 (the init's carry is one of them)");
    CHECK(error_of([] { (void)gradc::checkpoints{-3}; }) ==
          "gradc::checkpoints{s}: got s = -3, expected s >= 1 (the init's carry is one of them)");
}
