// What the lowering pass merges and keeps apart, and which derivatives it computes.

#include <cmath>
#include <type_traits>

#include <approx.hpp>
#include <gradc/gradc.hpp>

using gradc::test::is_close_to;

template <class K>
constexpr std::size_t node_count = K::program::size;
template <class K>
constexpr std::size_t edge_count = K::program::edge_count;

TEST_CASE("literals stay distinct: x*2 + x*3 has derivative 5", "[lower][cse]") {
    auto [x] = gradc::variables<1>();
    auto k = gradc::compile(x * 2.0 + x * 3.0);
    CHECK(k.gradient(1.5).gradient[0] == 5.0);
    CHECK(k(1.5) == 7.5);
    // x, 2, x*2, 3, x*3, sum: the two products are different nodes.
    STATIC_REQUIRE(node_count<decltype(k)> == 6);
}

TEST_CASE("equal payload-free subtrees are computed once", "[lower][cse]") {
    auto [x, y] = gradc::variables<2>();
    auto s = sin(x * y);
    auto k = gradc::compile(s * s + s);
    // x, y, x*y, sin, s*s, add: `sin(x*y)` appears three times in the tree, once here.
    STATIC_REQUIRE(node_count<decltype(k)> == 6);
    const double v = std::sin(0.7 * -1.3);
    const auto r = k.gradient(0.7, -1.3);
    CHECK_THAT(r.value, is_close_to(v * v + v));
    const double dv = (2 * v + 1) * std::cos(0.7 * -1.3);
    CHECK_THAT(r.gradient[0], is_close_to(dv * -1.3));
    CHECK_THAT(r.gradient[1], is_close_to(dv * 0.7));
}

TEST_CASE("repeated squaring: a tree of 2^16 nodes lowers to 17 nodes", "[lower][cse]") {
    auto [x] = gradc::variables<1>();
    auto y = x;
    auto f = [](auto e) { return e * e; };
    // Each step doubles the tree; the lowering walks each unique node once.
    auto y16 = f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(y))))))))))))))));
    STATIC_REQUIRE(sizeof(y16) == 1);  // payload-free subtrees store nothing
    auto k = gradc::compile(y16);
    STATIC_REQUIRE(node_count<decltype(k)> == 17);
    // d/dx x^(2^16) at x = 1 is 2^16.
    CHECK(k.gradient(1.0).gradient[0] == std::ldexp(1.0, 16));
    CHECK(k(1.0) == 1.0);
}

TEST_CASE("same literal value twice is still two nodes with their own values", "[lower][cse]") {
    auto [x] = gradc::variables<1>();
    auto k = gradc::compile(pow(x, 2) + pow(x, 3) - 4 * x + 0.5f);
    const auto r = k.gradient(2.0);
    CHECK_THAT(r.value, is_close_to(4 + 8 - 8 + 0.5));
    CHECK_THAT(r.gradient[0], is_close_to(4 + 12 - 4));
}

TEST_CASE("wrt: gradient only with respect to the named variables, in their order", "[lower][wrt]") {
    auto [x1, x2, x3] = gradc::variables<3>();
    auto f = sin(x1) * x2 + exp(x3 * x1);
    auto all = gradc::compile(f).gradient(0.3, -0.8, 1.1);
    auto k = gradc::compile(f, gradc::wrt(x3, x1));
    STATIC_REQUIRE(decltype(k)::wrt_count == 2);
    const auto r = k.gradient(0.3, -0.8, 1.1);
    CHECK(r.value == all.value);
    CHECK(r.gradient[0] == all.gradient[2]);
    CHECK(r.gradient[1] == all.gradient[0]);
    // Only edges towards x2 are dropped: the x2-only branch is not differentiated.
    auto k2 = gradc::compile(f, gradc::wrt(x2));
    CHECK(k2.gradient(0.3, -0.8, 1.1).gradient[0] == all.gradient[1]);
    STATIC_REQUIRE(edge_count<decltype(k2)> < edge_count<decltype(gradc::compile(f))>);
}

TEST_CASE("activity: derivatives not asked for cost no edge", "[lower][wrt]") {
    auto [x, y] = gradc::variables<2>();
    // Nothing depends on y: with wrt(y) there is nothing to sweep.
    auto k = gradc::compile(exp(sin(x)) * cos(x), gradc::wrt(y));
    STATIC_REQUIRE(edge_count<decltype(k)> == 0);
    CHECK(k.gradient(0.4, 9.0).gradient[0] == 0.0);
    // Only the x side of x*y is an edge under wrt(x).
    auto kx = gradc::compile(x * y, gradc::wrt(x));
    STATIC_REQUIRE(edge_count<decltype(kx)> == 1);
}

TEST_CASE("unused variables get gradient 0", "[lower][wrt]") {
    auto [a, b, c, d] = gradc::variables<4>();
    (void)b;
    (void)d;
    auto k = gradc::compile(a * c);
    STATIC_REQUIRE(decltype(k)::arity == 4);
    const auto r = k.gradient(2.0, 100.0, 3.0, -7.0);
    CHECK(r.gradient == std::array{3.0, 0.0, 2.0, 0.0});
}

TEST_CASE("a variable used only in a condition gets gradient 0", "[lower][wrt]") {
    auto [x, y] = gradc::variables<2>();
    auto k = gradc::compile(where(y > 0, x * x, -x));
    CHECK(k.gradient(3.0, 1.0).gradient == std::array{6.0, 0.0});
    CHECK(k.gradient(3.0, -1.0).gradient == std::array{-1.0, 0.0});
    auto kc = gradc::compile(where(sin(x) > 0 && y < 2, y, 0.0));
    CHECK(kc.gradient(1.0, 1.0).gradient == std::array{0.0, 1.0});
    CHECK(kc.gradient(-1.0, 1.0).gradient == std::array{0.0, 0.0});
    CHECK(kc.gradient(1.0, 3.0).gradient == std::array{0.0, 0.0});
}

TEST_CASE("where: an infinite partial on the branch not taken gives NaN, as in PyTorch", "[lower][wrt]") {
    auto [x] = gradc::variables<1>();
    // The adjoint of the unselected sqrt is 0, and sqrt'(0) * 0 = inf * 0 = NaN: reverse
    // mode propagates it exactly as PyTorch's torch.where does.
    auto k = gradc::compile(where(x > 0, sqrt(x), x * 0.5));
    CHECK(std::isnan(k.gradient(0.0).gradient[0]));
    CHECK(k.gradient(4.0).gradient[0] == 0.25);
    CHECK(std::isnan(k.gradient(-4.0).gradient[0]));  // sqrt(-4) is NaN, and so is its partial
    // The forward sweep gates the tangent itself, so the JVP is finite.
    CHECK(k.jvp(std::array{0.0}, std::array{1.0}).tangent == 0.5);
    // The usual remedy keeps the unselected branch away from the singular point.
    auto safe = gradc::compile(where(x > 0, sqrt(where(x > 0, x, 1.0)), x * 0.5));
    CHECK(safe.gradient(0.0).gradient[0] == 0.5);
    CHECK(safe.gradient(4.0).gradient[0] == 0.25);
}

TEST_CASE("literals of type int, float and double mix on either side", "[lower]") {
    auto [x] = gradc::variables<1>();
    auto k = gradc::compile(2 * x + x * 0.5f + 1.0 / x - 3 + (1 - x) * 2);
    const auto r = k.gradient(2.0);
    CHECK_THAT(r.value, is_close_to(4 + 1 + 0.5 - 3 - 2));
    CHECK_THAT(r.gradient[0], is_close_to(2 + 0.5 - 0.25 - 2));
    // Integer arguments are taken as double.
    CHECK(k(2) == r.value);
}

TEST_CASE("float kernels work like double ones", "[lower]") {
    auto [x1, x2] = gradc::variables<2>();
    auto k = gradc::compile(sin(x1) + x1 * x2 + pow(x2, 2.5) * 0.1);
    const auto rf = k.gradient(0.5f, 0.75f);
    const auto rd = k.gradient(0.5, 0.75);
    STATIC_REQUIRE(std::is_same_v<decltype(rf.value), float>);
    CHECK_THAT(rf.value, is_close_to(rd.value, 1e-6));
    CHECK_THAT(rf.gradient[0], is_close_to(rd.gradient[0], 1e-6));
    CHECK_THAT(rf.gradient[1], is_close_to(rd.gradient[1], 1e-6));
}

namespace {
struct quarter {
    static constexpr double value = 0.25;
};
}  // namespace

TEST_CASE("a named constant is one node, and the subtrees using it are merged", "[lower][structure]") {
    auto [x, y] = gradc::variables<2>();
    const auto half = gradc::constant([] { return 0.5; });
    const auto t = half * (x * y);
    const auto named = gradc::compile(t * t + exp(t) + sin(t));
    const auto u = 0.5 * (x * y);  // a literal: each use of u keeps its own copy
    const auto literal = gradc::compile(u * u + exp(u) + sin(u));
    STATIC_REQUIRE(decltype(named)::program::size == 10);
    STATIC_REQUIRE(decltype(literal)::program::size == 16);
    const auto a = named.gradient(0.3, 0.7), b = literal.gradient(0.3, 0.7);
    CHECK(a.value == b.value);
    CHECK(a.gradient == b.gradient);
    CHECK(gradc::compile(gradc::constant<quarter>() * x)(2.0, 0.0) == 0.5);
}

TEST_CASE("a graph's table of variables: where each variable is, read without a search", "[lower][cse]") {
    using gradc::graphs::absent;
    auto [x, y, z] = gradc::variables<3>();
    // y first, then x: the table follows the graph's order, not the variables'.
    const auto e = sin(y) * x + x * y;
    using G = decltype(e)::graph;
    // y, sin, x, mul, mul(x, y), add: x and y are found, not added again.
    STATIC_REQUIRE(G::size == 6);
    STATIC_REQUIRE(G::index::position(0) == 2);
    STATIC_REQUIRE(G::index::position(1) == 0);
    STATIC_REQUIRE(G::index::position(2) == absent);  // z: not used
    STATIC_REQUIRE(gradc::graphs::position_of<decltype(x), G>::value == 2);
    STATIC_REQUIRE(gradc::graphs::position_of<decltype(z), G>::value == G::size);
    // A payload-free subtree is still found by search: sin(y) is merged.
    STATIC_REQUIRE(decltype(e * sin(y))::graph::size == 7);
    const auto k = gradc::compile(e + z);
    STATIC_REQUIRE(node_count<decltype(k)> == 8);
    const auto r = k.gradient(0.3, -1.1, 2.0);
    CHECK_THAT(r.value, is_close_to(std::sin(-1.1) * 0.3 + 0.3 * -1.1 + 2.0));
    CHECK_THAT(r.gradient[0], is_close_to(std::sin(-1.1) - 1.1));
    CHECK_THAT(r.gradient[1], is_close_to(std::cos(-1.1) * 0.3 + 0.3));
    CHECK(r.gradient[2] == 1.0);
}

/// sin(e) + y applied N times to e (2 nodes a level; y is found, not added).
template <int N, class E, class Y>
auto sin_plus_chain(const E& e, const Y& y) {
    if constexpr (N == 0) {
        return e;
    } else {
        return sin_plus_chain<N - 1>(sin(e) + y, y);
    }
}

TEST_CASE("a graph in runs: a subtree of an early run is found after many later nodes", "[lower][cse]") {
    auto [x, y] = gradc::variables<2>();
    auto s = x * y;                                 // nodes 0, 1, 2 (not const: position_of takes the type)
    const auto e = sin_plus_chain<100>(s, y);        // 200 more: runs of 64 closed after s
    using G = decltype(e)::graph;
    STATIC_REQUIRE(G::size == 203);
    STATIC_REQUIRE(gradc::graphs::position_of<decltype(s), G>::value == 2);  // searched back through the runs
    STATIC_REQUIRE(gradc::graphs::position_of<decltype(sin(s)), G>::value == 3);
    STATIC_REQUIRE(decltype(e * s)::graph::size == 204);       // s merged, not added again
    STATIC_REQUIRE(decltype(e + sin(s))::graph::size == 204);

    const auto k = gradc::compile(e * s);
    STATIC_REQUIRE(node_count<decltype(k)> == 204);
    // The same recurrence in double, with its derivatives carried along.
    const double x0 = 0.7, y0 = -0.4;
    double v = x0 * y0, dvdx = y0, dvdy = x0;
    for (int level = 0; level < 100; ++level) {
        const double c = std::cos(v);
        v = std::sin(v) + y0;
        dvdx = c * dvdx;
        dvdy = c * dvdy + 1.0;
    }
    const auto r = k.gradient(x0, y0);
    CHECK_THAT(r.value, is_close_to(v * x0 * y0));
    CHECK_THAT(r.gradient[0], is_close_to(dvdx * x0 * y0 + v * y0));
    CHECK_THAT(r.gradient[1], is_close_to(dvdy * x0 * y0 + v * x0));
}

TEST_CASE("a graph's table of variables: array variables, and two sets met", "[lower][cse]") {
    auto [w, v] = gradc::variables(gradc::vec<3>, gradc::scalar);
    const auto e = sum(w * v) + v;
    using G = decltype(e)::graph;
    STATIC_REQUIRE(G::index::position(0) == 0);
    STATIC_REQUIRE(G::index::position(1) == 1);
    STATIC_REQUIRE(gradc::graphs::position_of<decltype(v), G>::value == 1);
    // Variables of two calls in one graph (compile() refuses it: mixed_variable_sets):
    // the table gives up and every lookup searches, so nothing is merged wrongly.
    auto [a] = gradc::variables<1>();
    auto [b] = gradc::variables<1>();
    const auto mixed = a * b + b + a;
    using M = decltype(mixed)::graph;
    STATIC_REQUIRE(std::is_same_v<M::index, gradc::graphs::input_index<gradc::graphs::mixed_families>>);
    STATIC_REQUIRE(M::size == 5);  // a, b, a*b, +b, +a: a and b found by search
    STATIC_REQUIRE(gradc::graphs::position_of<decltype(a), M>::value == 0);
    STATIC_REQUIRE(gradc::graphs::position_of<decltype(b), M>::value == 1);
}

TEST_CASE("every expression type says whether it is a condition; other types are neither", "[lower][structure]") {
    using gradc::expr::Condition;
    using gradc::expr::Expression;
    auto [x, y] = gradc::variables<2>();
    auto named_half = gradc::constant([] { return 0.5; });
    const auto e = sin(x) * 2.0 + named_half;
    const auto c = (e < y) && (x > 0.0);
    // Values: a variable, a literal inside a node, a named constant, a node.
    STATIC_REQUIRE(Expression<decltype(x)>);
    STATIC_REQUIRE(Expression<decltype(named_half)>);
    STATIC_REQUIRE(Expression<decltype(e)>);
    STATIC_REQUIRE(!Condition<decltype(e)>);
    STATIC_REQUIRE(!decltype(e)::is_condition);
    // Conditions: a comparison and a combination of two.
    STATIC_REQUIRE(Condition<decltype(e < y)>);
    STATIC_REQUIRE(Condition<decltype(c)>);
    STATIC_REQUIRE(!Expression<decltype(c)>);
    // Neither: numbers and unrelated types.
    STATIC_REQUIRE(!Expression<double> && !Condition<double>);
    STATIC_REQUIRE(!Expression<int> && !Condition<int>);
    STATIC_REQUIRE(!Condition<std::true_type>);
    // A condition inside `where` still selects lane by lane: x = 1, y = 3 takes e.
    const auto k = gradc::compile(where(c, e, y));
    CHECK_THAT(k(1.0, 3.0), is_close_to(std::sin(1.0) * 2.0 + 0.5));
    CHECK(k(-1.0, 3.0) == 3.0);
}

TEST_CASE("only a node of array shape has element access; a graph is extended by a free template", "[lower][structure]") {
    // Member templates in a class instantiated per node cost g++ a walk over the
    // node's whole subtree (docs/architecture.md, "Compile time"): a scalar node has none.
    using gradc::expr::entry_access;
    using gradc::expr::no_entry_access;
    auto [s, v] = gradc::variables(gradc::scalar, gradc::vec<3>);
    const auto scalar_node = sin(s) * s;  // payload-free, so found by its type below
    const auto vector_node = exp(v) + s;
    using S = std::remove_cvref_t<decltype(scalar_node)>;
    using V = std::remove_cvref_t<decltype(vector_node)>;
    STATIC_REQUIRE(std::is_base_of_v<no_entry_access, S>);
    STATIC_REQUIRE(!std::is_base_of_v<entry_access<S>, S>);
    STATIC_REQUIRE(std::is_base_of_v<entry_access<V>, V>);
    STATIC_REQUIRE(!std::is_base_of_v<no_entry_access, V>);
    // The vector node's entries are still reachable, at compile time and at run time.
    const auto k = gradc::compile(vector_node[std::integral_constant<int, 2>{}] + vector_node[1] + scalar_node);
    const std::array<double, 3> at{0.1, 0.2, 0.3};
    CHECK_THAT(k(0.5, at), is_close_to(std::exp(0.3) + 0.5 + std::exp(0.2) + 0.5 + std::sin(0.5) * 0.5));
    // Extending a graph: the appended node is last, and its key is found there.
    using G = S::graph;
    using E = gradc::graphs::extended_t<G, 0, G::index, gradc::graphs::entry<void, gradc::graphs::constant<0>>>;
    STATIC_REQUIRE(E::size == G::size + 1);
    STATIC_REQUIRE(gradc::graphs::position_of<S, E>::value == G::size - 1);
}
