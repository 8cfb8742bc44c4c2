// A subexpression that holds a literal, used twice, is two nodes of the flat graph; the
// kernel finds the copies whose literals are equal when it is built, and sums their
// adjoints as one node's (lower/equal_copies.hpp). Checked against closed forms where one
// copy's adjoint is 0 and the partial infinite: a sweep over two nodes gives 0·∞ = NaN
// there, the dynamic mode's single tensor (and the closed form) ±∞.

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include <approx.hpp>
#include <gradc/gradc.hpp>
#include <gradc/simd.hpp>

using gradc::test::close;
using gradc::test::is_close_to;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

template <class K>
using copies_of = gradc::lower::structural_copies<typename K::program::nodes>;

/// gradient_batch over the points equals gradient at each point, infinities included.
template <class K, std::size_t N>
void check_batch_against_scalar(const K& k, const std::vector<std::array<double, N>>& points) {
    std::array<std::vector<double>, N> in;
    std::array<std::vector<double>, K::wrt_count> grad;
    for (std::size_t j = 0; j < N; ++j)
        for (const auto& p : points) in[j].push_back(p[j]);
    for (auto& g : grad) g.assign(points.size(), 0.0);
    std::vector<double> value(points.size());
    std::array<std::span<const double>, N> in_spans;
    std::array<std::span<double>, K::wrt_count> grad_spans;
    for (std::size_t j = 0; j < N; ++j) in_spans[j] = in[j];
    for (std::size_t j = 0; j < K::wrt_count; ++j) grad_spans[j] = grad[j];
    k.gradient_batch(in_spans, std::span<double>(value), grad_spans);
    for (std::size_t p = 0; p < points.size(); ++p) {
        const auto s = k.gradient(points[p]);
        CAPTURE(p);
        CHECK(close(value[p], s.value, 1e-15, 0));
        for (std::size_t j = 0; j < K::wrt_count; ++j) CHECK(close(grad[j][p], s.gradient[j], 1e-15, 0));
    }
}

}  // namespace

TEST_CASE("a subexpression with a literal, used twice, gets one sum of adjoints", "[lower][copies]") {
    auto [x0, x1, x2] = gradc::variables<3>();
    const auto t = cbrt(where(x0 <= -2.0, x1, x2));
    const auto k = gradc::compile(t * 1.0 + where(x0 < 0.0, t, t * 0.0));
    using P = decltype(k)::program;
    // The second and third t (where, cbrt, twice) are copies of the first; t * 0.0 is a
    // copy of t * 1.0 in structure only.
    STATIC_REQUIRE(P::copies.count == 5);

    // x0 ≥ 0: t = cbrt(x2) with adjoint 1 (from t * 1.0) + 0 (the branch not taken): at
    // x2 = 0 the derivative is cbrt'(0) = +∞. Two nodes would give 1·∞ + 0·∞ = NaN.
    const auto at_zero = k.gradient(1.0, 0.5, 0.0);
    CHECK(at_zero.value == 0.0);
    CHECK(at_zero.gradient[0] == 0.0);
    CHECK(at_zero.gradient[1] == 0.0);
    CHECK(at_zero.gradient[2] == inf);

    // -2 < x0 < 0: f = 2·cbrt(x2); at x2 = 8, f = 4 and f' = 2/(3·4).
    const auto mid = k.gradient(-1.0, 0.5, 8.0);
    CHECK_THAT(mid.value, is_close_to(4.0));
    CHECK_THAT(mid.gradient[2], is_close_to(1.0 / 6.0));
    CHECK(mid.gradient[1] == 0.0);
    // x0 ≤ -2: f = 2·cbrt(x1).
    const auto low = k.gradient(-3.0, 8.0, 0.5);
    CHECK_THAT(low.value, is_close_to(4.0));
    CHECK_THAT(low.gradient[1], is_close_to(1.0 / 6.0));
    CHECK(low.gradient[2] == 0.0);

    // The Hessian of 2·cbrt(x2): f'' = -(4/9)·x2^(-5/3) = -1/72 at 8.
    const auto h = k.hessian(-1.0, 0.5, 8.0);
    CHECK_THAT(h.hessian[2][2], is_close_to(-1.0 / 72.0));
    CHECK(h.hessian[1][1] == 0.0);
    const auto hv = k.hvp(std::array{-1.0, 0.5, 8.0}, std::array{0.0, 0.0, 2.0});
    CHECK_THAT(hv.hvp[2], is_close_to(-2.0 / 72.0));

    check_batch_against_scalar<decltype(k), 3>(
        k, {{1.0, 0.5, 0.0}, {-1.0, 0.5, 8.0}, {-3.0, 8.0, 0.5}, {1.0, 0.5, -0.0}, {-1.0, 0.5, 0.0}, {-5.0, 0.0, 1.0},
            {0.5, 2.0, 27.0}, {-2.0, 1e-300, 3.0}, {-2.5, -1.0, 1.0}, {3.0, 1.0, -8.0}, {-0.5, 1.0, 1e-310}});
}

TEST_CASE("copies pass their adjoints to the first copy with equal literals", "[lower][copies]") {
    auto [x] = gradc::variables<1>();
    const auto u = cbrt(x * 2.0 - 1.0);
    // m has u's structure and other literals: never u's target (m's x * 2.0, equal to
    // u's, is: equal subexpressions are one computation wherever they stand).
    const auto m = cbrt(x * 2.0 - 3.0);
    const auto k = gradc::compile(m + where(x > 1.0, u, x) + u);
    using P = decltype(k)::program;

    const auto target = P::copy_targets(k.literals());
    std::size_t passing = 0;
    for (std::size_t i = 0; i < P::size; ++i) {
        if (target[i] == gradc::lower::no_node) continue;
        ++passing;
        CHECK(target[i] < i);
        CHECK(copies_of<decltype(k)>::classes[target[i]] == copies_of<decltype(k)>::classes[i]);
    }
    // u's two x * 2.0 pass to m's; the second u's x * 2.0 - 1.0 and cbrt to the first's.
    CHECK(passing == 4);

    // At x = 0.5, u = 0 with adjoint 0 (branch not taken) + 1: u' = +∞. Taking m for u's
    // target would give m's finite derivative, two nodes NaN.
    CHECK(k.gradient(0.5).gradient[0] == inf);
    // At x = 2 both copies of u count: f' = m' + 2·u' = 2/3 + 4/(3·3^(2/3)).
    CHECK_THAT(k.gradient(2.0).gradient[0], is_close_to(2.0 / 3.0 + 4.0 / (3.0 * std::cbrt(9.0))));
    CHECK_THAT(k.gradient(2.0).value, is_close_to(1.0 + 2.0 * std::cbrt(3.0)));
}

/// The sum over 48 terms of sin(x · c), c cycling through `Values`.
template <const auto& Values, class X>
auto sum_of_sines(const X& x) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return gradc::compile((sin(x * Values[I % Values.size()]) + ...));
    }(std::make_index_sequence<48>{});
}
constexpr std::array<double, 6> cycled_with_nan{0.5, -0.0, 0.0, 2.0, 0.5, std::numeric_limits<double>::quiet_NaN()};
constexpr std::array<double, 6> cycled{0.5, -0.0, 0.0, 2.0, 0.5, -3.0};

TEST_CASE("a large class of copies: the groups found by the hash table are those of pairwise comparison",
          "[lower][copies]") {
    // 48 terms sin(x · c) of one structural class, whose literals cycle through six values
    // (0.0 and -0.0 differ, NaN equals itself): the products are grouped by their literal's
    // bits, and the sines by their product's group.
    auto [x] = gradc::variables<1>();
    const auto k = sum_of_sines<cycled_with_nan>(x);
    using P = decltype(k)::program;
    using copies = copies_of<decltype(k)>;
    const auto canon = copies::canonical(k.literals());
    // A product's literal bits, or a sine's product's (low bit set); 0 for other nodes.
    const auto bits_of = [&](std::size_t i) -> std::uint64_t {
        if (P::desc[i].kind != gradc::lower::node_kind::primitive) return 0;
        if (P::desc[i].arity == 1) i = P::desc[i].operand[0];
        if (P::desc[i].arity != 2 || copies::literal_of[P::desc[i].operand[1]] == gradc::lower::no_node) return 0;
        return std::bit_cast<std::uint64_t>(k.literals()[copies::literal_of[P::desc[i].operand[1]]]) | 1;
    };
    std::size_t compared = 0, equal = 0;
    for (std::size_t i = 0; i < P::size; ++i) {
        if (bits_of(i) == 0) continue;
        for (std::size_t j = 0; j < i; ++j) {
            if (bits_of(j) == 0 || P::desc[i].arity != P::desc[j].arity) continue;
            ++compared;
            equal += canon[i] == canon[j] ? 1 : 0;
            CHECK((canon[i] == canon[j]) == (bits_of(i) == bits_of(j)));
        }
        CHECK(canon[i] <= i);
    }
    // 48 products and 48 sines; per set, 16 terms of 0.5 and 8 each of -0.0, 0.0, 2.0, NaN.
    CHECK(compared == 2 * (48 * 47 / 2));
    CHECK(equal == 2 * (16 * 15 / 2 + 4 * (8 * 7 / 2)));
    CHECK(std::isnan(k.gradient(0.7).gradient[0]));

    // Without the NaN: f' = Σ c·cos(c·x), and every copy passes its adjoint on.
    const auto finite = sum_of_sines<cycled>(x);
    CHECK(finite.bound().forwards);
    double value = 0, derivative = 0;
    for (std::size_t t = 0; t < 48; ++t) {
        value += std::sin(cycled[t % 6] * 0.7);
        derivative += cycled[t % 6] * std::cos(cycled[t % 6] * 0.7);
    }
    const auto g = finite.gradient(0.7);
    CHECK_THAT(g.value, is_close_to(value));
    CHECK_THAT(g.gradient[0], is_close_to(derivative));
}

TEST_CASE("copies are equal only when their literals are equal bit for bit", "[lower][copies]") {
    auto [x] = gradc::variables<1>();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto k = gradc::compile(x * 0.0 + x * -0.0 + x * nan + x * nan + x * 2.0 + x * 2.0 + x * 3.0);
    using P = decltype(k)::program;
    using copies = copies_of<decltype(k)>;
    const auto canon = copies::canonical(k.literals());
    // The literal a product reads as its second operand, or no_node.
    const auto literal_read = [](std::size_t i) {
        if (P::desc[i].kind != gradc::lower::node_kind::primitive || P::desc[i].operand[1] == gradc::lower::no_node)
            return gradc::lower::no_node;
        return copies::literal_of[P::desc[i].operand[1]];
    };
    std::size_t products = 0;
    for (std::size_t i = 0; i < P::size; ++i) {
        if (literal_read(i) == gradc::lower::no_node) continue;
        ++products;
        const double a = k.literals()[literal_read(i)];
        for (std::size_t j = 0; j < i; ++j) {
            if (literal_read(j) == gradc::lower::no_node) continue;
            const double b = k.literals()[literal_read(j)];
            CAPTURE(a, b);
            CHECK((canon[i] == canon[j]) == (std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b)));
        }
    }
    CHECK(products == 7);
    CHECK(k.gradient(1.5).gradient[0] != k.gradient(1.5).gradient[0]);  // NaN: x * NaN
    CHECK(k.bound().forwards);
    const auto no_nan = gradc::compile(x * 0.0 + x * -0.0 + x * 2.0 + x * 2.0 + x * 3.0);
    CHECK(no_nan.gradient(1.5).gradient[0] == 7.0);
    // Copies that all differ: the kernel keeps the plain adjoint sweep (lower/program.hpp).
    const auto differ = gradc::compile(x * 2.0 + x * 3.0 + x * -2.0);
    STATIC_REQUIRE(decltype(differ)::program::copies.count == 2);
    CHECK(!differ.bound().forwards);
    CHECK(differ.gradient(1.5).gradient[0] == 3.0);
    CHECK(gradc::to_string(differ).find("  bv2 = 0\n") == std::string::npos);  // x * 2.0: no slot zeroed first
}

TEST_CASE("a copy that only a condition reads passes nothing; the values' copies are summed", "[lower][copies]") {
    auto [x] = gradc::variables<1>();
    const auto t = log(x * 2.0);
    const auto k = gradc::compile(where(t > 0.0, t, t * t));
    // t > 0: f = t, f' = 1/x.
    CHECK_THAT(k.gradient(2.0).gradient[0], is_close_to(0.5));
    // t < 0: f = t², f' = 2t/x.
    CHECK_THAT(k.gradient(0.25).gradient[0], is_close_to(8.0 * std::log(0.5)));
    // x = 0: t = -∞ takes the branch t·t, whose adjoint 2t = -∞ meets t' = +∞: -∞ (the
    // branch not taken adds 0 to the sum first; as two nodes, 0·∞ = NaN).
    CHECK(k.gradient(0.0).gradient[0] == -inf);
    check_batch_against_scalar<decltype(k), 1>(k, {{2.0}, {0.25}, {0.0}, {-0.0}, {0.5}, {1e-310}, {inf}, {-1.0}, {3.0}});
}

TEST_CASE("map-reduce sums the adjoints of copies at every point", "[lower][copies][map_reduce]") {
    auto [d, theta] = gradc::variables<2>();
    const auto t = cbrt(theta * 2.0);  // the same at every point: swept per point all the same
    const auto k = gradc::compile(where(d > 0.0, t, d) + t * (d * d + 1.0), gradc::wrt(theta));
    std::vector<double> data{-1.5, 0.25, 2.0, -0.5, 1.0, -3.0, 0.75, 4.0, -2.0, 0.5, 1.5, -1.0, 3.0, -0.25, 2.5,
                             -4.0, 0.125, 5.0, -0.75};
    const std::array<std::span<const double>, 1> spans{std::span<const double>(data)};
    for (const double th : {0.7, -1.3, 0.0}) {
        CAPTURE(th);
        const auto r = k.map_reduce(spans, std::array{th});
        double value = 0, grad = 0;
        for (const double di : data) {
            const auto g = k.gradient(di, th);
            value += g.value;
            grad += g.gradient[0];
        }
        CHECK_THAT(r.value, is_close_to(value, 1e-12, 1e-12));
        CHECK_THAT(r.gradient[0], is_close_to(grad, 1e-12, 1e-12));
        // θ = 0: cbrt'(0) = +∞ times each point's adjoint [d > 0] + d² + 1 > 0.
        if (th == 0.0) CHECK(r.gradient[0] == inf);
        if (th != 0.0) {
            const auto h = k.map_reduce_hessian(spans, std::array{th});
            double hess = 0;
            for (const double di : data) hess += k.hessian(di, th).hessian[0][0];
            CHECK_THAT(h.hessian[0][0], is_close_to(hess, 1e-12, 1e-12));
            CHECK_THAT(h.gradient[0], is_close_to(grad, 1e-12, 1e-12));
        }
    }
}

TEST_CASE("the printed adjoint passes a copy's adjoint on in one line", "[lower][copies][print]") {
    auto [x, y] = gradc::variables<2>();
    const auto t = sqrt(x * 3.0);
    const auto k = gradc::compile(where(y > 0.0, t, y) + t);
    const std::string text = gradc::to_string(k);
    CAPTURE(text);
    // y, 0, x, 3, x*3, sqrt (v5), where, and the copies 3, x*3, sqrt (v9), add: v9's
    // adjoint goes to v5, whose slot starts at 0 since whether it does is known at run time.
    CHECK(text.find("  bv5 += bv9   (v9 computes what v5 does)\n") != std::string::npos);
    CHECK(text.find("  bv5 = 0\n") != std::string::npos);
    CHECK(text.find("  dbv5 += dbv9   (v9 computes what v5 does)\n") != std::string::npos);
    const std::string dot = gradc::to_dot(k);
    CHECK(dot.find("the same value") != std::string::npos);
    // At x = 0 the sqrt's adjoint is [y > 0] + 1, so d/dx = +∞ whatever y.
    CHECK(k.gradient(0.0, -1.0).gradient[0] == inf);
    CHECK_THAT(k.gradient(3.0, -1.0).gradient[0], is_close_to(0.5));
}

namespace {

/// map_reduce and map_reduce_hessian of a one-parameter kernel against the sums of its
/// per-point gradients and Hessians; at θ = 0 the gradient is +∞.
template <class K>
void check_map_reduce_against_points(const K& k, const std::vector<double>& data) {
    const std::array<std::span<const double>, 1> spans{std::span<const double>(data)};
    for (const double th : {0.7, 6.0, -1.3, 0.0}) {
        CAPTURE(th);
        const auto r = k.map_reduce(spans, std::array{th});
        double value = 0, grad = 0, hess = 0;
        for (const double di : data) {
            const auto h = k.hessian(di, th);
            value += h.value;
            grad += h.gradient[0];
            hess += h.hessian[0][0];
        }
        CHECK_THAT(r.value, is_close_to(value, 1e-12, 1e-12));
        CHECK_THAT(r.gradient[0], is_close_to(grad, 1e-12, 1e-12));
        if (th == 0.0) CHECK(r.gradient[0] == inf);
        if (th != 0.0) {
            const auto h = k.map_reduce_hessian(spans, std::array{th});
            CHECK_THAT(h.gradient[0], is_close_to(grad, 1e-12, 1e-12));
            CHECK_THAT(h.hessian[0][0], is_close_to(hess, 1e-12, 1e-12));
        }
    }
}

/// How many of a map-reduce's live copies pass their adjoints on in the sweep on sums.
template <class K>
std::size_t copies_swept_on_sums() {
    using P = typename K::program;
    using split = gradc::lower::map_reduce_split<P, gradc::simd::detail::data_mask<K>>;
    std::size_t n = 0;
    for (std::size_t i = 0; i < P::size; ++i) n += P::copies.member[i] && split::plan.sum_only[i] ? 1 : 0;
    return n;
}

}  // namespace

TEST_CASE("map-reduce passes a copy's adjoint on where its class's adjoints are whole", "[lower][copies][map_reduce]") {
    const std::vector<double> data{0.5, 1.5, 2.0,  0.25, 3.0,   0.75, 1.0,   4.0, 0.125,
                                   2.5, 1.25, 0.5, 3.5, 0.375, 5.0,  0.625, 1.75};
    auto [d, theta] = gradc::variables<2>();
    SECTION("copies that depend on θ alone: their adjoints are summed over the points first") {
        // t's edges are swept once, on its summed adjoint; so is the copy's hand-over.
        // cbrt'(0) = +∞ meets Σ d + 0 (tanh's branch not taken) > 0 at θ = 0.
        const auto t = cbrt(theta * 2.0);
        const auto k = gradc::compile(t * d + where(theta > 5.0, tanh(t), theta), gradc::wrt(theta));
        STATIC_REQUIRE(decltype(k)::program::copies.count == 2);
        CHECK(copies_swept_on_sums<decltype(k)>() == 4);  // θ·2 and cbrt, twice
        check_map_reduce_against_points(k, data);
    }
    SECTION("copies that vary with the data: passed on at every point") {
        const auto t = cbrt(theta * d * 2.0);
        const auto k = gradc::compile(where(theta > 5.0, t, theta) + t * 1.5, gradc::wrt(theta));
        STATIC_REQUIRE(decltype(k)::program::copies.count == 2);
        CHECK(copies_swept_on_sums<decltype(k)>() == 0);
        check_map_reduce_against_points(k, data);
    }
}
