// Copies of a subexpression that holds a literal, in array kernels with run-time extents
// (include/gradc/lower/equal_copies.hpp): each is a node of its own, found equal to the
// first when the kernel is built (its literals equal bit for bit), and then takes the
// first's value instead of computing it, and passes its adjoint to it.
//  - a reused run-time segment: values equal to the same expression with a compile-time
//    segment and a named constant (one node by type) bit for bit, gradients to rounding;
//    the printed adjoint passes the copy's adjoint on;
//  - copies whose literals differ stay apart: each computes its own value;
//  - a loop used twice (its count a literal) runs once: the printed program, and the
//    value and gradient against the loop used once;
//  - an emitting loop whose final carry and ys are both used, and a loop in a loop's body
//    used twice (a "wide" node, more operands than a structure keeps inline);
//  - the reverse sweep that keeps each step's values against one that runs each step
//    again (`gradc::checkpoints{s}` keeps carries alone), bit for bit.
// (Variables are taken apart with std::get: clang 14 cannot capture structured
// bindings in the loops' lambdas.)
#include <cstddef>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <gradc/gradc.hpp>

#include "approx.hpp"

using gradc::dynamic_extent;
using gradc::test::central_difference;

namespace {

std::size_t count_of(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

}  // namespace

TEST_CASE("copies: a reused run-time segment computes once, as one node by type does", "[loops][copies]") {
    const auto x = std::get<0>(gradc::variables(gradc::vec<dynamic_extent>));
    const auto two = gradc::constant([] { return 2.0; });
    const auto u = tanh(gradc::segment(x, 1, 3) * 2.0);           // holds literals: a node per use
    const auto merged = tanh(gradc::segment<1, 3>(x) * two);        // one node by type
    const auto k = gradc::compile(sum(u * u) + sum(exp(u)) + sum(sin(u)));
    const auto reference = gradc::compile(sum(merged * merged) + sum(exp(merged)) + sum(sin(merged)));
    const std::string printed = gradc::to_string(k);
    CAPTURE(printed);
    CHECK(count_of(printed, "computes what") >= 2);  // the second and third uses pass their adjoints on
    const std::vector<double> at{0.3, -0.7, 1.2, 0.4, 2.0};
    CHECK(k(at) == reference(at));
    const auto g = k.gradient(at), e = reference.gradient(at);
    CHECK(g.value == e.value);
    for (std::size_t i = 0; i < at.size(); ++i) CHECK(std::get<0>(g.gradient)[i] == Approx(std::get<0>(e.gradient)[i]).epsilon(1e-15));
    for (std::size_t i = 0; i < at.size(); ++i) {
        const auto along = [&](double v) {
            auto p = at;
            p[i] = v;
            return k(p);
        };
        CHECK(std::get<0>(g.gradient)[i] == Approx(central_difference(along, at[i])).margin(1e-9));
    }
}

TEST_CASE("copies: copies whose literals differ compute their own values", "[loops][copies]") {
    const auto x = std::get<0>(gradc::variables(gradc::vec<dynamic_extent>));
    const auto part = [&](std::size_t offset) { return exp(gradc::segment(x, offset, 2) * 0.5); };
    const auto k = gradc::compile(sum(part(0)) + 3.0 * sum(part(1)) + 5.0 * sum(part(2)));
    const std::vector<double> at{0.1, 0.2, 0.3, 0.4};
    double expected = 0.0;
    for (std::size_t i = 0; i < 2; ++i)
        expected += std::exp(at[i] * 0.5) + 3.0 * std::exp(at[1 + i] * 0.5) + 5.0 * std::exp(at[2 + i] * 0.5);
    CHECK(k(at) == Approx(expected).epsilon(1e-15));
    const auto g = k.gradient(at);
    const std::vector<double> weights{1.0, 4.0, 8.0, 5.0};  // the entries each part reads, weighted
    for (std::size_t i = 0; i < at.size(); ++i)
        CHECK(std::get<0>(g.gradient)[i] == Approx(weights[i] * 0.5 * std::exp(at[i] * 0.5)).epsilon(1e-14));
}

TEST_CASE("copies: a loop used twice runs once", "[loops][copies]") {
    const auto vars = gradc::variables(gradc::scalar, gradc::vec<dynamic_extent>);
    const auto a = std::get<0>(vars);
    const auto c0 = std::get<1>(vars);
    // The count 7 and the 0.3 are literals: the two uses of `looped` are two nodes.
    const auto looped = gradc::loop(7, c0, [=](auto c, auto) { return tanh(a * c + 0.3); });
    const auto twice = gradc::compile(sum(looped * looped) + sum(exp(looped)));
    const auto once = gradc::compile(sum(looped * looped + exp(looped)));
    const std::string printed = gradc::to_string(twice);
    CAPTURE(printed);
    CHECK(count_of(printed, "= loop(") >= 2);
    CHECK(count_of(printed, "computes what") >= 1);
    const std::vector<double> c{0.2, -0.5, 0.9};
    const double av = 0.8;
    CHECK(twice(av, c) == Approx(once(av, c)).epsilon(1e-15));
    const auto g = twice.gradient(av, c), e = once.gradient(av, c);
    CHECK(std::get<0>(g.gradient) == Approx(std::get<0>(e.gradient)).epsilon(1e-14));
    for (std::size_t i = 0; i < c.size(); ++i) CHECK(std::get<1>(g.gradient)[i] == Approx(std::get<1>(e.gradient)[i]).epsilon(1e-14));
    CHECK(std::get<0>(g.gradient) == Approx(central_difference([&](double v) { return twice(v, c); }, av)).epsilon(1e-8));
    // The JVP and the Hessian see the same function.
    const auto h = twice.hessian(av, c), he = once.hessian(av, c);
    for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t j = 0; j < 4; ++j) CHECK(h.hessian(i, j) == Approx(he.hessian(i, j)).margin(1e-13).epsilon(1e-12));
}

TEST_CASE("copies: an emitting loop's final carry and ys, and a loop in a loop used twice", "[loops][copies]") {
    const auto vars = gradc::variables(gradc::scalar, gradc::vec<dynamic_extent>, gradc::vec<dynamic_extent>);
    const auto s = std::get<0>(vars);
    const auto h0 = std::get<1>(vars);
    const auto w = std::get<2>(vars);
    const auto out = gradc::loop(5, h0, [=](auto h, auto k) { return gradc::emit(tanh(s * h + w * (0.1 * k))); });
    const auto both = gradc::compile(sum(std::get<0>(out)) + sum(std::get<1>(out)));
    // The same from the states alone: the final carry is the last of ys.
    const auto ys_only = gradc::compile(sum(gradc::last_row(std::get<1>(out))) + sum(std::get<1>(out)));
    const std::vector<double> h{0.3, -0.2}, wv{0.5, 1.5};
    CHECK(both(0.7, h, wv) == Approx(ys_only(0.7, h, wv)).epsilon(1e-15));
    const auto g = both.gradient(0.7, h, wv), e = ys_only.gradient(0.7, h, wv);
    CHECK(std::get<0>(g.gradient) == Approx(std::get<0>(e.gradient)).epsilon(1e-14));
    for (std::size_t i = 0; i < 2; ++i) CHECK(std::get<1>(g.gradient)[i] == Approx(std::get<1>(e.gradient)[i]).epsilon(1e-14));

    // An outer loop whose body holds an inner loop with literals, used twice.
    const auto nested = gradc::loop(3, h0, [=](auto y, auto) {
        const auto inner = gradc::loop(2, y, [=](auto d, auto) { return d - 0.25 * (d - sin(s * y)); });
        return 0.5 * inner + 0.5 * inner * inner;
    });
    const auto nested_once = gradc::loop(3, h0, [=](auto y, auto) {
        const auto inner = gradc::loop(2, y, [=](auto d, auto) { return d - 0.25 * (d - sin(s * y)); });
        return 0.5 * inner * (1.0 + inner);
    });
    const auto kn = gradc::compile(sum(nested) + sum(nested * nested));
    const auto kr = gradc::compile(sum(nested_once) + sum(nested_once * nested_once));
    CHECK(kn(0.7, h, wv) == Approx(kr(0.7, h, wv)).epsilon(1e-14));
    const auto gn = kn.gradient(0.7, h, wv), gr = kr.gradient(0.7, h, wv);
    CHECK(std::get<0>(gn.gradient) == Approx(std::get<0>(gr.gradient)).epsilon(1e-13));
    for (std::size_t i = 0; i < 2; ++i) CHECK(std::get<1>(gn.gradient)[i] == Approx(std::get<1>(gr.gradient)[i]).epsilon(1e-13));
}

TEST_CASE("copies: keeping each step's values gives the gradient of running each step again", "[loops][copies]") {
    const auto vars = gradc::variables(gradc::scalar, gradc::vec<dynamic_extent>);
    const auto theta = std::get<0>(vars);
    const auto y0 = std::get<1>(vars);
    const auto step = [=](auto y, auto k) { return y + 0.05 * sin(theta * y + 0.01 * k) * exp(-0.1 * y * y); };
    const auto kept = gradc::compile(sum(gradc::loop(40, y0, step)));
    // 39 checkpoints: carries alone, each step run again from a checkpoint before its adjoint.
    const auto again = gradc::compile(sum(gradc::loop(40, y0, step, gradc::checkpoints{39})));
    const std::vector<double> y{0.4, -1.1, 2.0, 0.0};
    const auto g = kept.gradient(1.3, y), e = again.gradient(1.3, y);
    CHECK(g.value == e.value);
    CHECK(std::get<0>(g.gradient) == std::get<0>(e.gradient));
    for (std::size_t i = 0; i < y.size(); ++i) CHECK(std::get<1>(g.gradient)[i] == std::get<1>(e.gradient)[i]);
}
