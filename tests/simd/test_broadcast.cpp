// Broadcast arguments of scalar kernels' batch calls: every call (value, gradient, jvp,
// vjp, hessian, hvp) with some of its read arguments given as gradc::broadcast(x) equals,
// to rounding, the same call with those values copied into spans of N entries. Not bit for
// bit: the two calls are different instantiations of the same program, and at -O3 g++
// contracts a·b + c into fused multiply-adds differently in them (last-bit differences in
// jvp_batch, seen once the rules were forced inline). One table
// of calls, run for every way of broadcasting some of three variables (never all), in
// float and double, for N = 0, 1, 7 (a tail on every architecture), 1000 and, on two
// threads, 1000 and 20001 (several chunks of points).
#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <gradc/gradc.hpp>
#include <gradc/simd.hpp>

#include "approx.hpp"

GRADC_SIMD_DIAGNOSTICS_PUSH

namespace {

template <class T>
using list = std::vector<std::vector<T>>;

/// "To rounding" for gradc::test::close, relative and absolute: a few units in the last
/// place of outputs of order 1 (the contraction of one product shows at that scale even
/// where an output is near 0).
template <class T>
constexpr double rounding = std::is_same_v<T, float> ? 1e-6 : 1e-14;

/// Every entry of `actual` equal to `expected`'s to rounding.
template <class T>
void check_same_to_rounding(const std::vector<T>& actual, const std::vector<T>& expected) {
    REQUIRE(actual.size() == expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i)
        CHECK_THAT(double(actual[i]), gradc::test::is_close_to(double(expected[i]), rounding<T>, rounding<T>));
}

/// Per-point values of three slots, the values broadcast in the other form, and those
/// values copied into N-entry spans.
template <class T>
struct slots {
    std::array<std::vector<T>, 3> points;
    std::array<T, 3> fixed;
    std::array<std::vector<T>, 3> filled;
    slots(std::size_t n, std::array<T, 3> values, unsigned seed) : fixed(values) {
        std::mt19937_64 rng(seed);
        std::uniform_real_distribution<double> u(0.5, 1.5);
        for (std::size_t j = 0; j < 3; ++j) {
            points[j].resize(n);
            for (auto& x : points[j]) x = static_cast<T>(u(rng));
            filled[j].assign(n, fixed[j]);
        }
    }
    /// The tuple form: slot j broadcast where Broadcast[j], else its span.
    template <std::array<bool, 3> Broadcast>
    auto tuple() const {
        const auto entry = [&]<std::size_t j>(std::integral_constant<std::size_t, j>) {
            if constexpr (Broadcast[j]) return gradc::broadcast(fixed[j]);
            else return std::span<const T>(points[j]);
        };
        return std::tuple{entry(std::integral_constant<std::size_t, 0>{}), entry(std::integral_constant<std::size_t, 1>{}),
                          entry(std::integral_constant<std::size_t, 2>{})};
    }
    /// The list form of the same values: the broadcast ones copied into spans.
    template <std::array<bool, 3> Broadcast>
    std::array<std::span<const T>, 3> spanned() const {
        std::array<std::span<const T>, 3> s;
        for (std::size_t j = 0; j < 3; ++j) s[j] = Broadcast[j] ? std::span<const T>(filled[j]) : points[j];
        return s;
    }
    std::array<std::span<const T>, 3> spans() const { return {points[0], points[1], points[2]}; }
};

template <class T>
list<T> outputs(std::size_t count, std::size_t n) {
    return list<T>(count, std::vector<T>(n, T(-7)));
}

/// One batch call: its outputs, from the inputs in the broadcast form (true) or spanned.
template <class T>
struct Row {
    std::string name;
    std::function<list<T>(bool broadcast, int threads)> call;
};

/// The table for one way of broadcasting the variables (In) and the tangents,
/// directions or weights (D): every batch call kind, with one and with several outputs,
/// all wrt variables or some of them in another order.
template <class T, std::array<bool, 3> In, std::array<bool, 3> D>
std::vector<Row<T>> table(std::size_t n) {
    auto [a, b, c] = gradc::variables<3>();
    const auto f = gradc::compile(sin(a) * b + exp(0.3 * c * a) - b * c * c);
    const auto fw = gradc::compile(sin(a) * b + exp(0.3 * c * a) - b * c * c, gradc::wrt(c, a));
    const auto two = gradc::compile(a * b + c, sin(b) - a * c);
    const auto two3 = gradc::compile(a * b + c, sin(b) - a * c, c / a);
    const auto x = std::make_shared<slots<T>>(n, std::array<T, 3>{T(0.7), T(-0.4), T(1.3)}, 1);
    const auto d = std::make_shared<slots<T>>(n, std::array<T, 3>{T(0.25), T(-1.5), T(2)}, 2);
    // Calls `call(in, d)` with both in the chosen form.
    const auto forms = [x, d](bool broadcast, auto&& call) {
        if (broadcast) call(x->template tuple<In>(), d->template tuple<D>());
        else call(x->template spanned<In>(), d->template spanned<D>());
    };
    std::vector<Row<T>> t;
    t.push_back({"value_batch", [=](bool bc, int th) {
                     auto out = outputs<T>(1, n);
                     forms(bc, [&](const auto& in, const auto&) { f.value_batch(in, std::span<T>(out[0]), gradc::threads{th}); });
                     return out;
                 }});
    t.push_back({"value_batch, two outputs", [=](bool bc, int th) {
                     auto out = outputs<T>(2, n);
                     forms(bc, [&](const auto& in, const auto&) { two.value_batch(in, out, gradc::threads{th}); });
                     return out;
                 }});
    t.push_back({"gradient_batch", [=](bool bc, int th) {
                     auto out = outputs<T>(4, n);
                     list<T> g(out.begin() + 1, out.end());
                     forms(bc, [&](const auto& in, const auto&) { f.gradient_batch(in, out[0], g, gradc::threads{th}); });
                     out.resize(1);
                     out.insert(out.end(), g.begin(), g.end());
                     return out;
                 }});
    t.push_back({"gradient_batch, wrt(c, a)", [=](bool bc, int th) {
                     auto v = outputs<T>(1, n);
                     auto g = outputs<T>(2, n);
                     forms(bc, [&](const auto& in, const auto&) { fw.gradient_batch(in, std::span<T>(v[0]), g, gradc::threads{th}); });
                     v.insert(v.end(), g.begin(), g.end());
                     return v;
                 }});
    t.push_back({"jvp_batch", [=](bool bc, int th) {
                     auto v = outputs<T>(2, n);
                     auto tan = outputs<T>(2, n);
                     forms(bc, [&](const auto& in, const auto& dx) { two.jvp_batch(in, dx, v, tan, gradc::threads{th}); });
                     v.insert(v.end(), tan.begin(), tan.end());
                     return v;
                 }});
    t.push_back({"jvp_batch, tangents as spans", [=](bool bc, int th) {
                     auto v = outputs<T>(2, n);
                     auto tan = outputs<T>(2, n);
                     forms(bc, [&](const auto& in, const auto&) { two.jvp_batch(in, d->spans(), v, tan, gradc::threads{th}); });
                     v.insert(v.end(), tan.begin(), tan.end());
                     return v;
                 }});
    t.push_back({"vjp_batch, three outputs", [=](bool bc, int th) {
                     auto g = outputs<T>(3, n);
                     forms(bc, [&](const auto& in, const auto& w) { two3.vjp_batch(in, w, g, gradc::threads{th}); });
                     return g;
                 }});
    t.push_back({"hessian_batch", [=](bool bc, int th) {
                     auto v = outputs<T>(1, n);
                     auto g = outputs<T>(3, n);
                     auto h = outputs<T>(6, n);
                     forms(bc, [&](const auto& in, const auto&) { f.hessian_batch(in, v, g, h, gradc::threads{th}); });
                     v.insert(v.end(), g.begin(), g.end());
                     v.insert(v.end(), h.begin(), h.end());
                     return v;
                 }});
    t.push_back({"hessian_batch, wrt(c, a)", [=](bool bc, int th) {
                     auto v = outputs<T>(1, n);
                     auto g = outputs<T>(2, n);
                     auto h = outputs<T>(3, n);
                     forms(bc, [&](const auto& in, const auto&) { fw.hessian_batch(in, v, g, h, gradc::threads{th}); });
                     v.insert(v.end(), g.begin(), g.end());
                     v.insert(v.end(), h.begin(), h.end());
                     return v;
                 }});
    t.push_back({"hvp_batch", [=](bool bc, int th) {
                     auto v = outputs<T>(1, n);
                     auto g = outputs<T>(3, n);
                     auto hv = outputs<T>(3, n);
                     forms(bc, [&](const auto& in, const auto& dir) { f.hvp_batch(in, dir, v, g, hv, gradc::threads{th}); });
                     v.insert(v.end(), g.begin(), g.end());
                     v.insert(v.end(), hv.begin(), hv.end());
                     return v;
                 }});
    return t;
}

struct Run {
    std::size_t n;
    int threads;
};
constexpr std::array<Run, 6> runs{{{0, 1}, {1, 1}, {7, 1}, {1000, 1}, {1000, 2}, {20001, 2}}};

template <class T, std::array<bool, 3> In, std::array<bool, 3> D>
void check_table() {
    for (const Run& r : runs) {
        for (const auto& row : table<T, In, D>(r.n)) {
            INFO(row.name << ", N = " << r.n << ", threads = " << r.threads << ", in broadcast " << In[0] << In[1]
                          << In[2] << ", tangents broadcast " << D[0] << D[1] << D[2]);
            const list<T> spanned = row.call(false, r.threads);
            const list<T> broadcast = row.call(true, r.threads);
            REQUIRE(broadcast.size() == spanned.size());
            for (std::size_t k = 0; k < broadcast.size(); ++k) check_same_to_rounding(broadcast[k], spanned[k]);
            for (const auto& o : broadcast)  // every output written
                CHECK(std::none_of(o.begin(), o.end(), [](T e) { return e == T(-7); }));
        }
    }
}

template <class T>
void check_all() {
    constexpr bool B = true, S = false;
    check_table<T, std::array{B, S, S}, std::array{S, S, S}>();
    check_table<T, std::array{S, B, S}, std::array{B, S, B}>();
    check_table<T, std::array{S, S, B}, std::array{S, B, S}>();
    check_table<T, std::array{B, B, S}, std::array{B, B, S}>();
    check_table<T, std::array{B, S, B}, std::array{S, S, B}>();
    check_table<T, std::array{S, B, B}, std::array{B, S, S}>();
    check_table<T, std::array{S, S, S}, std::array{S, B, B}>();  // the tuple form without broadcast
}

}  // namespace

TEST_CASE("broadcast arguments equal their values spanned, for every batch call (double)", "[simd][broadcast]") {
    check_all<double>();
}

TEST_CASE("broadcast arguments equal their values spanned, for every batch call (float)", "[simd][broadcast]") {
    check_all<float>();
}

TEST_CASE("broadcast: the points counted from the tangents, values converted, tuples of references",
          "[simd][broadcast]") {
    auto [a, b] = gradc::variables<2>();
    const auto k = gradc::compile(a * sin(b), a - b);
    const std::size_t n = 13;
    std::vector<float> da(n), db(n), v0(n), v1(n), t0(n), t1(n), r0(n), r1(n), s0(n), s1(n);
    for (std::size_t i = 0; i < n; ++i) {
        da[i] = 0.1f * float(i);
        db[i] = 1.0f - 0.05f * float(i);
    }
    // Every variable broadcast, the tangents per point: J(x)·dx_i at one x.
    const std::vector<float> a_filled(n, 0.75f), b_filled(n, float(-0.2));
    k.jvp_batch(std::tuple{gradc::broadcast(0.75f), gradc::broadcast(-0.2)}, std::tuple{std::span(da), std::span(db)},
                std::array<std::span<float>, 2>{v0, v1}, std::array<std::span<float>, 2>{t0, t1});
    k.jvp_batch(std::array<std::span<const float>, 2>{a_filled, b_filled}, std::array<std::span<const float>, 2>{da, db},
                std::array<std::span<float>, 2>{r0, r1}, std::array<std::span<float>, 2>{s0, s1});
    check_same_to_rounding(v0, r0);
    check_same_to_rounding(v1, r1);
    check_same_to_rounding(t0, s0);
    check_same_to_rounding(t1, s1);
    // A tuple of references (no copy of the vectors), and a double broadcast into float lanes.
    std::vector<float> w0(n), w1(n);
    const double theta = -0.2;
    k.value_batch(std::forward_as_tuple(a_filled, gradc::broadcast(theta)), std::array<std::span<float>, 2>{w0, w1});
    check_same_to_rounding(w0, r0);
    check_same_to_rounding(w1, r1);
    // A broadcast value read from an output buffer is read before anything is written.
    std::vector<float> out(n, 0.5f), expect(n);
    const auto single = gradc::compile(a * b);
    single.value_batch(std::tuple{std::span<const float>(da), gradc::broadcast(out[0])}, std::span<float>(out));
    for (std::size_t i = 0; i < n; ++i) expect[i] = da[i] * 0.5f;
    CHECK(out == expect);
}

GRADC_SIMD_DIAGNOSTICS_POP
