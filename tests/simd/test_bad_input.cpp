// Bad input to the static mode at run time, one table: every row calls an entry point
// that takes run-time sizes (the batch calls, second-order batch calls and map-reduce of
// scalar kernels; the one-point calls, batch calls and map-reduce of array kernels) with
// the wrong thing: spans of different lengths (also beside variables given by
// gradc::broadcast), a wrong number of spans, an empty list of
// spans, outputs that overlap each other or overlap an input shifted, a wrong number of
// parameters, array arguments of the wrong size. Each must throw gradc::Error, the one
// type of every bad run-time argument (docs/reliability.md), with a message naming the
// call, the argument, what it got and what it expected, and leave every buffer (inputs
// and outputs) as it was. Scalar kernels' one-point calls take
// compile-time arrays: their misuse does not compile (tests/lower/compile_fail).
//
// What is not an error is checked after the table: empty spans (N = 0), an output that
// is exactly an input (in place), NaN data in map-reduce (it propagates).
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <gradc/gradc.hpp>

using Catch::Matchers::Contains;

namespace {

constexpr std::size_t n = 20;  // full AVX-512 batches and a tail
constexpr double untouched = -7.0;

/// Every buffer a call may read or write: inputs a, b, c (distinct values) and outputs
/// pre-filled with a sentinel.
struct Buffers {
    std::vector<double> a, b, c, values, g1, g2, g3, big;
    Buffers() : a(n), b(n), c(n), values(n, untouched), g1(n, untouched), g2(n, untouched), g3(n, untouched),
                big(2 * n, untouched) {
        for (std::size_t i = 0; i < n; ++i) {
            a[i] = 0.5 + 0.1 * double(i);
            b[i] = 2.0 - 0.05 * double(i);
            c[i] = -1.0 + 0.2 * double(i);
        }
    }
    bool operator==(const Buffers&) const = default;
};

struct BadInput {
    std::string name;
    std::function<void(Buffers&)> call;
    std::vector<std::string> fragments;
};

using in2 = std::array<std::span<const double>, 2>;
using out2 = std::array<std::span<double>, 2>;

std::vector<BadInput> static_table() {
    auto [x1, x2] = gradc::variables<2>();
    // One output, wrt both variables.
    const auto k = gradc::compile(x1 * x2 + sin(x1));
    // Two outputs, for jvp_batch and vjp_batch.
    const auto two = gradc::compile(x1 * x2, x1 - x2);
    // A likelihood term: x is data, mu and sigma parameters.
    auto [x, mu, sigma] = gradc::variables<3>();
    const auto ll = gradc::compile(-0.5 * (x - mu) * (x - mu) / (sigma * sigma) - log(sigma), gradc::wrt(mu, sigma));
    auto [W, v] = gradc::variables(gradc::mat<2, 2>, gradc::vec<2>);
    const auto ak = gradc::compile(sum(tanh(W * v)), gradc::wrt(W));

    std::vector<BadInput> t;
    // ---- scalar kernels: value_batch --------------------------------------------------
    t.push_back({"value_batch: spans of different lengths", [k](Buffers& s) {
                     k.value_batch(in2{s.a, std::span<const double>(s.b).first(n - 1)}, std::span<double>(s.values));
                 }, {"gradc value_batch:", "`in[1]`", "19 entries", "expected 20"}});
    t.push_back({"value_batch: three spans for two variables", [k](Buffers& s) {
                     k.value_batch(std::array<std::span<const double>, 3>{s.a, s.b, s.c}, std::span<double>(s.values));
                 }, {"gradc value_batch:", "`in`", "3 spans", "expected 2", "one per variable"}});
    t.push_back({"value_batch: an empty list of spans", [k](Buffers& s) {
                     k.value_batch(std::vector<std::span<const double>>{}, std::span<double>(s.values));
                 }, {"gradc value_batch:", "`in`", "0 spans", "expected 2"}});
    t.push_back({"value_batch: an empty output for 20 points", [k](Buffers& s) {
                     k.value_batch(in2{s.a, s.b}, std::span<double>());
                 }, {"gradc value_batch:", "`values`", "0 entries", "expected 20"}});
    t.push_back({"value_batch: the output is an input shifted by one", [k](Buffers& s) {
                     k.value_batch(in2{std::span<const double>(s.big).first(n), s.b}, std::span<double>(s.big).subspan(1, n));
                 }, {"gradc value_batch:", "`values` overlaps `in[0]`", "20 entries", "exactly the same span"}});
    // ---- gradient_batch ---------------------------------------------------------------
    t.push_back({"gradient_batch: one gradient span for two wrt variables", [k](Buffers& s) {
                     k.gradient_batch(in2{s.a, s.b}, std::span<double>(s.values),
                                      std::array<std::span<double>, 1>{s.g1});
                 }, {"gradc gradient_batch:", "`grad`", "1 spans", "expected 2", "one per wrt variable"}});
    t.push_back({"gradient_batch: a gradient span one too long", [k](Buffers& s) {
                     k.gradient_batch(in2{s.a, s.b}, std::span<double>(s.values),
                                      out2{s.g1, std::span<double>(s.big).first(n + 1)});
                 }, {"gradc gradient_batch:", "`grad[1]`", "21 entries", "expected 20"}});
    t.push_back({"gradient_batch: values and grad[0] are the same span", [k](Buffers& s) {
                     k.gradient_batch(in2{s.a, s.b}, std::span<double>(s.values), out2{s.values, s.g2});
                 }, {"gradc gradient_batch:", "`values` overlaps `grad[0]`", "share no memory with another output"}});
    t.push_back({"gradient_batch: two gradient spans overlap", [k](Buffers& s) {
                     k.gradient_batch(in2{s.a, s.b}, std::span<double>(s.values),
                                      out2{std::span<double>(s.big).first(n), std::span<double>(s.big).subspan(5, n)});
                 }, {"gradc gradient_batch:", "`grad[0]` overlaps `grad[1]`"}});
    t.push_back({"gradient_batch: a gradient overlaps an input shifted back", [k](Buffers& s) {
                     k.gradient_batch(in2{s.a, std::span<const double>(s.big).subspan(3, n)}, std::span<double>(s.values),
                                      out2{s.g1, std::span<double>(s.big).first(n)});
                 }, {"gradc gradient_batch:", "`grad[1]` overlaps `in[1]`"}});
    // ---- jvp_batch and vjp_batch ------------------------------------------------------
    t.push_back({"jvp_batch: one tangent span for two wrt variables", [two](Buffers& s) {
                     two.jvp_batch(in2{s.a, s.b}, std::array<std::span<const double>, 1>{s.c}, out2{s.values, s.g1},
                                   out2{s.g2, s.g3});
                 }, {"gradc jvp_batch:", "`tangents_in`", "1 spans", "expected 2"}});
    t.push_back({"jvp_batch: a tangent output that is a value output", [two](Buffers& s) {
                     two.jvp_batch(in2{s.a, s.b}, in2{s.c, s.c}, out2{s.values, s.g1}, out2{s.g2, s.g1});
                 }, {"gradc jvp_batch:", "`values[1]` overlaps `tangents_out[1]`"}});
    t.push_back({"vjp_batch: a weight span short", [two](Buffers& s) {
                     two.vjp_batch(in2{s.a, s.b}, in2{s.c, std::span<const double>(s.c).first(3)}, out2{s.g1, s.g2});
                 }, {"gradc vjp_batch:", "`weights[1]`", "3 entries", "expected 20"}});
    t.push_back({"vjp_batch: a gradient that overlaps a weight shifted", [two](Buffers& s) {
                     two.vjp_batch(in2{s.a, s.b}, in2{s.c, std::span<const double>(s.big).subspan(1, n)},
                                   out2{std::span<double>(s.big).first(n), s.g2});
                 }, {"gradc vjp_batch:", "`grad[0]` overlaps `weights[1]`"}});
    // ---- jacobian_batch ----------------------------------------------------------------
    t.push_back({"jacobian_batch: three Jacobian spans for two outputs by two wrt variables", [two](Buffers& s) {
                     two.jacobian_batch(in2{s.a, s.b}, out2{s.values, s.g1},
                                        std::array<std::span<double>, 3>{s.g2, s.g3, std::span<double>(s.big).first(n)});
                 }, {"gradc jacobian_batch:", "`jac`", "3 spans", "expected 4"}});
    // ---- hessian_batch, hvp_batch (second order) ---------------------------------------
    t.push_back({"hessian_batch: two Hessian spans for the three of a 2x2 upper triangle", [k](Buffers& s) {
                     k.hessian_batch(in2{s.a, s.b}, std::span<double>(s.values), out2{s.g1, s.g2}, out2{s.g3, s.c});
                 }, {"gradc hessian_batch:", "`hess`", "2 spans", "expected 3", "upper triangle"}});
    t.push_back({"hessian_batch: a Hessian entry written over a gradient", [k](Buffers& s) {
                     k.hessian_batch(in2{s.a, s.b}, std::span<double>(s.values), out2{s.g1, s.g2},
                                     std::array<std::span<double>, 3>{s.g3, s.g2, std::span<double>(s.big).first(n)});
                 }, {"gradc hessian_batch:", "`grad[1]` overlaps `hess[1]`"}});
    t.push_back({"hvp_batch: a direction span short", [k](Buffers& s) {
                     k.hvp_batch(in2{s.a, s.b}, in2{s.c, std::span<const double>(s.c).first(n - 2)},
                                 std::span<double>(s.values), out2{s.g1, s.g2}, out2{s.g3, std::span<double>(s.big).first(n)});
                 }, {"gradc hvp_batch:", "`v_in[1]`", "18 entries", "expected 20"}});
    t.push_back({"hvp_batch: the product written over the direction shifted", [k](Buffers& s) {
                     k.hvp_batch(in2{s.a, s.b}, in2{s.c, std::span<const double>(s.big).subspan(2, n)},
                                 std::span<double>(s.values), out2{s.g1, s.g2}, out2{s.g3, std::span<double>(s.big).first(n)});
                 }, {"gradc hvp_batch:", "`hvp_out[1]` overlaps `v_in[1]`"}});
    // ---- broadcast arguments (the tuple form) -------------------------------------------
    t.push_back({"value_batch: a broadcast variable beside a short span, and values for 20 points", [ll](Buffers& s) {
                     ll.value_batch(std::tuple{std::span<const double>(s.a), gradc::broadcast(0.5),
                                               std::span<const double>(s.b).first(n - 1)},
                                    std::span<double>(s.values));
                 }, {"gradc value_batch:", "`in[2]`", "19 entries", "expected 20", "as many as `in[0]`"}});
    t.push_back({"gradient_batch: the values one short of the span beside a broadcast", [k](Buffers& s) {
                     k.gradient_batch(std::tuple{gradc::broadcast(0.5), std::span<const double>(s.b)},
                                      std::span<double>(s.values).first(n - 1), out2{s.g1, s.g2});
                 }, {"gradc gradient_batch:", "`values`", "19 entries", "expected 20"}});
    t.push_back({"gradient_batch: a gradient span long, the points counted from in[1]", [k](Buffers& s) {
                     k.gradient_batch(std::tuple{gradc::broadcast(0.5), std::span<const double>(s.b)},
                                      std::span<double>(s.values), out2{s.g1, std::span<double>(s.big).first(n + 1)});
                 }, {"gradc gradient_batch:", "`grad[1]`", "21 entries", "expected 20", "as many as `in[1]`"}});
    t.push_back({"gradient_batch: a gradient over the span beside a broadcast, shifted", [k](Buffers& s) {
                     k.gradient_batch(std::tuple{gradc::broadcast(0.5), std::span<const double>(s.big).subspan(2, n)},
                                      std::span<double>(s.values), out2{s.g1, std::span<double>(s.big).first(n)});
                 }, {"gradc gradient_batch:", "`grad[1]` overlaps `in[1]`"}});
    t.push_back({"jvp_batch: a short tangent beside a broadcast one", [two](Buffers& s) {
                     two.jvp_batch(std::tuple{gradc::broadcast(0.5), std::span<const double>(s.b)},
                                   std::tuple{std::span<const double>(s.c).first(n - 1), gradc::broadcast(1.0)},
                                   out2{s.values, s.g1}, out2{s.g2, s.g3});
                 }, {"gradc jvp_batch:", "`tangents_in[0]`", "19 entries", "expected 20", "as many as `in[1]`"}});
    t.push_back({"jvp_batch: every variable broadcast, the tangents of different lengths", [two](Buffers& s) {
                     two.jvp_batch(std::tuple{gradc::broadcast(0.5), gradc::broadcast(2.0)},
                                   std::tuple{std::span<const double>(s.c), std::span<const double>(s.a).first(4)},
                                   out2{s.values, s.g1}, out2{s.g2, s.g3});
                 }, {"gradc jvp_batch:", "`tangents_in[1]`", "4 entries", "expected 20", "as many as `tangents_in[0]`"}});
    t.push_back({"vjp_batch: a short weight beside a broadcast one", [two](Buffers& s) {
                     two.vjp_batch(in2{s.a, s.b}, std::tuple{gradc::broadcast(1.0), std::span<const double>(s.c).first(3)},
                                   out2{s.g1, s.g2});
                 }, {"gradc vjp_batch:", "`weights[1]`", "3 entries", "expected 20"}});
    t.push_back({"hessian_batch: a short span after a broadcast", [ll](Buffers& s) {
                     ll.hessian_batch(std::tuple{std::span<const double>(s.a), gradc::broadcast(0.5),
                                                 std::span<const double>(s.b).first(n - 1)},
                                      std::span<double>(s.values), out2{s.g1, s.g2},
                                      std::array<std::span<double>, 3>{s.g3, s.c, std::span<double>(s.big).first(n)});
                 }, {"gradc hessian_batch:", "`in[2]`", "19 entries", "expected 20"}});
    t.push_back({"hvp_batch: a broadcast direction and a short one", [k](Buffers& s) {
                     k.hvp_batch(std::tuple{gradc::broadcast(0.5), std::span<const double>(s.b)},
                                 std::tuple{gradc::broadcast(1.0), std::span<const double>(s.c).first(n - 2)},
                                 std::span<double>(s.values), out2{s.g1, s.g2}, out2{s.g3, std::span<double>(s.big).first(n)});
                 }, {"gradc hvp_batch:", "`v_in[1]`", "18 entries", "expected 20"}});
    // ---- map_reduce -------------------------------------------------------------------
    t.push_back({"map_reduce: three parameters for two", [ll](Buffers& s) {
                     (void)ll.map_reduce(std::array<std::span<const double>, 1>{s.c}, std::vector{0.0, 1.0, 2.0});
                 }, {"gradc map_reduce:", "`theta`", "3 entries", "expected 2", "one per wrt variable"}});
    t.push_back({"map_reduce: no parameters", [ll](Buffers& s) {
                     (void)ll.map_reduce(std::array<std::span<const double>, 1>{s.c}, std::vector<double>{});
                 }, {"gradc map_reduce:", "`theta`", "0 entries", "expected 2"}});
    t.push_back({"map_reduce: two data spans for one data variable", [ll](Buffers& s) {
                     (void)ll.map_reduce(in2{s.c, s.a}, std::array{0.0, 1.0});
                 }, {"gradc map_reduce:", "`data`", "2 spans", "expected 1", "not in wrt"}});
    t.push_back({"map_reduce_hessian: one parameter for two", [ll](Buffers& s) {
                     (void)ll.map_reduce_hessian(std::array<std::span<const double>, 1>{s.c}, std::array{0.0});
                 }, {"gradc map_reduce_hessian:", "`theta`", "1 entries", "expected 2"}});
    t.push_back({"map_reduce_hessian_diagonal: three parameters for two", [ll](Buffers& s) {
                     (void)ll.map_reduce_hessian_diagonal(std::array<std::span<const double>, 1>{s.c}, std::array{0.0, 1.0, 2.0});
                 }, {"gradc map_reduce_hessian_diagonal:", "`theta`", "3 entries", "expected 2"}});
    // ---- array kernels ----------------------------------------------------------------
    t.push_back({"array gradient: a matrix argument with 3 entries for 2x2", [ak](Buffers&) {
                     (void)ak.gradient(std::vector<double>{1, 2, 3}, std::array{1.0, 2.0});
                 }, {"gradc kernel gradient:", "argument 0 has 3 entries", "expected 4"}});
    t.push_back({"array value: an empty vector argument", [ak](Buffers&) {
                     (void)ak.value(std::array{1.0, 2.0, 3.0, 4.0}, std::vector<double>{});
                 }, {"gradc kernel value:", "argument 1 has 0 entries", "expected 2"}});
    t.push_back({"array hessian_diagonal: a vector argument with 3 entries for 2", [ak](Buffers&) {
                     (void)ak.hessian_diagonal(std::array{1.0, 2.0, 3.0, 4.0}, std::vector<double>{1, 2, 3});
                 }, {"gradc kernel hessian_diagonal:", "argument 1 has 3 entries", "expected 2"}});
    t.push_back({"array vjp: weights of the wrong size", [ak](Buffers&) {
                     (void)ak.vjp(std::tuple{std::array{1.0, 2.0, 3.0, 4.0}, std::array{1.0, 2.0}}, std::vector<double>{1, 2});
                 }, {"gradc kernel vjp:", "2 entries", "expected 1"}});
    t.push_back({"array gradient_batch: spans for a missing entry", [ak](Buffers& s) {
                     const std::vector<std::span<const double>> in{s.a, s.b, s.c, s.a, s.b};  // 6 entries needed
                     std::array<std::span<double>, 4> g{s.g1, s.g2, s.g3, std::span<double>(s.big).first(n)};
                     ak.gradient_batch(in, std::span<double>(s.values), g);
                 }, {"gradc gradient_batch:", "`in`", "5 spans", "expected 6"}});
    t.push_back({"array gradient_batch: values overlap a gradient", [ak](Buffers& s) {
                     const std::vector<std::span<const double>> in{s.a, s.b, s.c, s.a, s.b, s.c};
                     std::array<std::span<double>, 4> g{s.g1, s.g2, s.g3, std::span<double>(s.big).first(n)};
                     ak.gradient_batch(in, std::span<double>(s.big).subspan(n - 1, n), g);
                 }, {"gradc gradient_batch:", "`values` overlaps `grad[3]`"}});
    t.push_back({"array gradient_batch: a gradient overlaps a span of a variable after a broadcast one", [ak](Buffers& s) {
                     // W broadcast (entries 0-3 of the one-list numbering), x per point (entries 4, 5):
                     // the message numbers x's second span as the one-list form would.
                     const std::vector<std::span<const double>> x{s.a, std::span<const double>(s.big).first(n)};
                     std::array<std::span<double>, 4> g{std::span<double>(s.big).subspan(1, n), s.g1, s.g2, s.g3};
                     ak.gradient_batch(std::tuple{gradc::broadcast(std::array{1.0, 2.0, 3.0, 4.0}), x},
                                       std::span<double>(s.values), g);
                 }, {"gradc gradient_batch:", "`grad[0]` overlaps `in[5]`"}});
    t.push_back({"array map_reduce: a parameter of the wrong size", [ak](Buffers& s) {
                     (void)ak.map_reduce(in2{s.a, s.b}, std::vector<double>{1, 2, 3});
                 }, {"map_reduce", "3 entries", "expected 4"}});
    return t;
}

}  // namespace

TEST_CASE("static mode: every bad run-time argument is an error naming the call, and changes nothing",
          "[simd][bad_input]") {
    const auto table = static_table();
    for (const auto& row : table) {
        INFO("row: " << row.name);
        Buffers buffers;
        const Buffers before = buffers;
        std::string message;
        try {
            row.call(buffers);
        } catch (const gradc::Error& e) {
            message = e.what();
        }  // any other type escapes the test: one type for every bad argument
        INFO("message: " << message);
        REQUIRE_FALSE(message.empty());
        for (const auto& fragment : row.fragments) CHECK_THAT(message, Contains(fragment));
        CHECK(buffers == before);
    }
}

TEST_CASE("static mode: empty spans, exact in-place outputs and NaN data are not errors", "[simd][bad_input]") {
    auto [x1, x2] = gradc::variables<2>();
    const auto k = gradc::compile(x1 * x2 + sin(x1));
    Buffers s;
    // N = 0: nothing to do, nothing written.
    const std::span<const double> none;
    k.gradient_batch(in2{none, none}, std::span<double>(), std::array<std::span<double>, 2>{});
    // Every output exactly an input: each batch is read before it is written, so the
    // results are those of the same call into separate buffers.
    k.gradient_batch(in2{s.a, s.b}, std::span<double>(s.values), out2{s.g1, s.g2});
    const std::vector<double> values = s.values;
    s.values.assign(n, untouched);
    k.gradient_batch(in2{s.a, s.b}, std::span<double>(s.values), out2{s.a, s.b});
    CHECK(s.values == values);
    CHECK(s.a == s.g1);
    CHECK(s.b == s.g2);
    // NaN data is data: the sum and its gradient are NaN, as Σ over the points says
    // (map_reduce checks nothing per point, which would cost a pass over the data).
    auto [x, mu, scale] = gradc::variables<3>();
    const auto ll = gradc::compile((x - mu) * (x - mu) * scale, gradc::wrt(mu, scale));
    std::vector<double> data(n, 1.0);
    const std::array<std::span<const double>, 1> d{data};
    CHECK(ll.map_reduce(d, std::array{0.5, 2.0}).value == n * 0.25 * 2.0);
    data[n - 1] = std::numeric_limits<double>::quiet_NaN();  // in the tail
    const auto r = ll.map_reduce(d, std::array{0.5, 2.0});
    CHECK(std::isnan(r.value));
    CHECK(std::isnan(r.gradient[0]));
    CHECK(std::isnan(r.gradient[1]));
}
