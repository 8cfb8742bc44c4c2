// The JVP of every kind of operation (forward_ad.hpp), one table of cases checked three
// ways: against PyTorch's forward AD (reference/forward_ad_data.hpp, written by
// reference/generate_forward_ad.py, which holds the same cases), against the JVP that
// the fallback derives from each operation's backward formula, and against reverse mode
// through the duality Re⟨v, J·u⟩ = Re⟨vᵀJ, u⟩.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <boost/hana/for_each.hpp>

#include <gradc/rules.hpp>

#include "reference/forward_ad_data.hpp"
#include "support.hpp"

using namespace testing;
using gradc::Shape;
using gradc::Tensor;
using gradc::tensor_list;
namespace fwd = gradc::autograd::forward_ad;

namespace {

const std::vector<double>& fwd_ref(const std::string& name) {
    auto it = forward_ad_reference::data().find(name);
    if (it == forward_ad_reference::data().end()) throw std::runtime_error("no forward-mode reference value named " + name);
    return it->second;
}

// Input i of a case (primal "x", tangent "u"), with the case's shape and dtype.
Tensor input(const std::string& c, const char* what, std::size_t i) {
    const std::string base = c + ".x" + std::to_string(i);
    Shape shape;
    for (double d : fwd_ref(base + ".shape")) shape.push_back(static_cast<std::int64_t>(d));
    const auto& v = fwd_ref(c + "." + what + std::to_string(i));
    if (fwd_ref(base + ".complex")[0] == 0.0) return gradc::from_vector(v, shape);
    std::vector<double> re, im;
    for (std::size_t k = 0; k < v.size(); k += 2) {
        re.push_back(v[k]);
        im.push_back(v[k + 1]);
    }
    return gradc::complex(gradc::from_vector(re, shape), gradc::from_vector(im, shape));
}

std::size_t arity(const std::string& c) {
    std::size_t n = 0;
    while (forward_ad_reference::data().count(c + ".x" + std::to_string(n))) ++n;
    return n;
}

using Fn = std::function<tensor_list(const tensor_list&)>;

struct Case {
    std::string name;
    Fn f;
};

Fn unary(Tensor (*f)(const Tensor&)) {
    return [f](const tensor_list& x) -> tensor_list { return {f(x[0])}; };
}
Fn binary(Tensor (*f)(const Tensor&, const Tensor&)) {
    return [f](const tensor_list& x) -> tensor_list { return {f(x[0], x[1])}; };
}

// The functions of generate_forward_ad.py, spelled with gradc.
std::vector<Case> table() {
    using namespace gradc;
    std::vector<Case> t;
    // Every one-operand rule of the rule table (generate_forward_ad.py: reference_io.UNARY).
    boost::hana::for_each(gradc::rules::all, [&](auto rule) {
        using R = typename decltype(rule)::type;
        if constexpr (R::arity == 1) t.push_back({"unary." + std::string(R::name), unary(&rule_tensor_op<R>::apply)});
    });
    t.push_back({"unary.square", unary(square)});

    t.push_back({"edge.abs", unary(abs)});
    t.push_back({"edge.relu", unary(relu)});
    t.push_back({"edge.clamp", [](const tensor_list& x) -> tensor_list { return {clamp(x[0], -0.5, 0.5)}; }});
    t.push_back({"edge.maximum", binary(maximum)});
    t.push_back({"edge.minimum", binary(minimum)});

    t.push_back({"binary.add", [](const tensor_list& x) -> tensor_list { return {add(x[0], x[1], 2.5)}; }});
    t.push_back({"binary.sub", [](const tensor_list& x) -> tensor_list { return {x[0] - x[1]}; }});
    t.push_back({"binary.mul", [](const tensor_list& x) -> tensor_list { return {x[0] * x[1]}; }});
    t.push_back({"binary.div", [](const tensor_list& x) -> tensor_list { return {x[0] / x[1]}; }});
    t.push_back({"binary.pow", binary(pow)});
    t.push_back({"binary.atan2", binary(atan2)});
    t.push_back({"binary.hypot", binary(hypot)});
    t.push_back({"binary.maximum", binary(maximum)});
    t.push_back({"binary.minimum", binary(minimum)});
    t.push_back({"binary.where", [](const tensor_list& x) -> tensor_list {
                     return {where(tensor({1.0, 0.0, 1.0}) > 0.5, x[0], x[1])};
                 }});
    t.push_back({"binary.mul_one_tangent", [](const tensor_list& x) -> tensor_list { return {x[0] * tensor({1.1, 0.7, 2.5})}; }});
    t.push_back({"binary.scalar", [](const tensor_list& x) -> tensor_list { return {2.0 / (x[0] + 1.0) - 3.0 * x[0]}; }});

    const Tensor w = complex(tensor({1.1, 0.2, -0.7, 0.9}), tensor({-0.3, 1.4, 0.6, 0.1}));
    const std::vector<std::pair<std::string, Tensor (*)(const Tensor&)>> complex_unaries{
        {"exp", exp}, {"log", log}, {"sin", sin}, {"cos", cos}, {"tan", tan}, {"tanh", tanh}, {"sqrt", sqrt},
        {"sigmoid", sigmoid}, {"sinh", sinh}, {"abs", abs}, {"angle", angle}, {"square", square}};
    for (const auto& [name, f] : complex_unaries) t.push_back({"complex." + name, unary(f)});
    t.push_back({"complex.conj", [](const tensor_list& x) -> tensor_list { return {conj(x[0]) * 1.0}; }});
    t.push_back({"complex.real", [](const tensor_list& x) -> tensor_list { return {real(x[0]) * 1.0}; }});
    t.push_back({"complex.imag", [](const tensor_list& x) -> tensor_list { return {imag(x[0]) * 1.0}; }});
    t.push_back({"complex.mul", [](const tensor_list& x) -> tensor_list { return {x[0] * x[1]}; }});
    t.push_back({"complex.div", [](const tensor_list& x) -> tensor_list { return {x[0] / x[1]}; }});
    t.push_back({"complex.add", [](const tensor_list& x) -> tensor_list { return {x[0] + x[1]}; }});
    t.push_back({"complex.from_parts", [w](const tensor_list& x) -> tensor_list { return {complex(x[0], x[1]) * w}; }});
    t.push_back({"complex.abs_chain", [w](const tensor_list& x) -> tensor_list {
                     return {real(x[0] * conj(x[0])) + abs(x[0] * w)};
                 }});

    t.push_back({"views.chain", [](const tensor_list& x) -> tensor_list {
                     const Tensor& a = x[0];
                     return {transpose(a, 0, 2).select(0, 1).reshape({-1}) * 2.0,
                             slice(slice(a, 1, 1, 3), 2, std::nullopt, std::nullopt, 2).flatten(),
                             permute(a, {2, 0, 1}).select(0, 3), a[1][2].unsqueeze(0).expand({3, 4}),
                             narrow(a, 2, 1, 2).squeeze()};
                 }});
    t.push_back({"views.as_strided", [](const tensor_list& x) -> tensor_list { return {as_strided(x[0], {2, 2}, {1, 2}, 1)}; }});
    t.push_back({"inplace.views", [](const tensor_list& x) -> tensor_list {
                     const Tensor &p = x[0], &q = x[1];
                     Tensor base = zeros({2, 3});
                     base[1].copy_(p);
                     Tensor c = stack({p, p}, 0).clone();
                     c[0].mul_(q);
                     c.select(1, 1).sin_();
                     Tensor d = q.clone();
                     d.add_(p, 0.5).exp_();
                     return {base, c, d};
                 }});

    t.push_back({"reduce.sum", [](const tensor_list& x) -> tensor_list {
                     return {sum(x[0]), sum(x[0], {0, 2}), sum(x[0], {1}, true)};
                 }});
    t.push_back({"reduce.mean", [](const tensor_list& x) -> tensor_list {
                     return {mean(x[0]), mean(x[0], {2}), mean(x[0], {0, 1}, true)};
                 }});
    t.push_back({"reduce.prod", [](const tensor_list& x) -> tensor_list {
                     return {prod(x[0]), prod(x[0], 1), prod(x[0], 2, true)};
                 }});
    t.push_back({"reduce.prod_zeros", [](const tensor_list& x) -> tensor_list {
                     return {prod(x[0]), prod(x[0], 1), prod(x[0], 2)};
                 }});
    t.push_back({"reduce.amax", [](const tensor_list& x) -> tensor_list {
                     return {amax(x[0]), amax(x[0], {1}), amin(x[0], {0}, true), max(x[0]), min(x[0])};
                 }});
    t.push_back({"reduce.max_dim", [](const tensor_list& x) -> tensor_list {
                     return {std::get<0>(max(x[0], 1)), std::get<0>(min(x[0], 2, true))};
                 }});
    t.push_back({"reduce.norm", [](const tensor_list& x) -> tensor_list {
                     return {norm(x[0]), norm(x[0], 2, {1}), norm(x[0], 2, {0, 2}, true), norm(x[0], 1), norm(x[0], 3)};
                 }});
    t.push_back({"reduce.norm_complex", [](const tensor_list& x) -> tensor_list { return {norm(x[0])}; }});
    t.push_back({"reduce.logsumexp", [](const tensor_list& x) -> tensor_list {
                     return {logsumexp(x[0], {1}), logsumexp(x[0], {0, 2}, true)};
                 }});
    t.push_back({"reduce.softmax", [](const tensor_list& x) -> tensor_list {
                     return {softmax(x[0], 1), log_softmax(x[0], -1)};
                 }});

    t.push_back({"index.ops", [](const tensor_list& x) -> tensor_list {
                     const Tensor &s = x[0], &v = x[1];
                     const Tensor gidx = tensor_i64({0, 2, 2, 1}, {2, 2});
                     return {cat({s, v.unsqueeze(0)}, 0), stack({s[0], v}, 1), index_select(s, 1, tensor_i64({2, 0, 2})),
                             gather(s, 1, gidx), index_add(s, 1, tensor_i64({2, 0}), v.slice(0, 0, 2).expand({2, 2})),
                             scatter_add(s, 1, gidx, v.slice(0, 1).expand({2, 2}))};
                 }});

    t.push_back({"matmul.mm", binary(mm)});
    t.push_back({"matmul.mv", binary(mv)});
    t.push_back({"matmul.dot", binary(dot)});
    t.push_back({"matmul.broadcast", binary(matmul)});
    t.push_back({"matmul.complex", binary(matmul)});
    return t;
}

struct Run {
    tensor_list primals, tangents, outputs, output_tangents;
};

// f on the case's inputs made dual; the outputs' primals and tangents (zeros when none).
Run run(const Case& c) {
    Run r;
    for (std::size_t i = 0; i < arity(c.name); ++i) {
        r.primals.push_back(input(c.name, "x", i));
        r.tangents.push_back(input(c.name, "u", i));
    }
    fwd::dual_level level;
    tensor_list duals;
    for (std::size_t i = 0; i < r.primals.size(); ++i) duals.push_back(fwd::make_dual(r.primals[i], r.tangents[i]));
    for (const Tensor& y : c.f(duals)) {
        auto [p, t] = fwd::unpack_dual(y);
        r.outputs.push_back(p.detach());
        r.output_tangents.push_back(t.defined() ? t.detach() : gradc::zeros_like(p));
    }
    return r;
}

// Re⟨a, b⟩ = Σ Re(conj(a)·b).
double inner(const Tensor& a, const Tensor& b) {
    return gradc::sum(gradc::real(gradc::conj(a.detach()) * b.detach())).item<double>();
}

}  // namespace

TEST_CASE("forward mode agrees with PyTorch's forward AD on every operation", "[autograd][forward_ad][reference]") {
    for (const Case& c : table()) {
        INFO(c.name);
        const Run r = run(c);
        for (std::size_t k = 0; k < r.outputs.size(); ++k) {
            INFO("output " << k);
            CHECK_THAT(values(r.outputs[k]), approx(fwd_ref(c.name + ".y" + std::to_string(k)), 1e-9, 1e-12));
            CHECK_THAT(values(r.output_tangents[k]), approx(fwd_ref(c.name + ".t" + std::to_string(k)), 1e-9, 1e-12));
        }
    }
}

TEST_CASE("each dedicated JVP formula equals the JVP derived from the backward formula", "[autograd][forward_ad][fallback]") {
    for (const Case& c : table()) {
        INFO(c.name);
        const Run dedicated = run(c);
        fwd::detail::ForceFallback fallback;
        const Run derived = run(c);
        for (std::size_t k = 0; k < dedicated.outputs.size(); ++k) {
            INFO("output " << k);
            CHECK_THAT(values(derived.output_tangents[k]), approx(values(dedicated.output_tangents[k]), 1e-10, 1e-12));
        }
    }
}

TEST_CASE("forward and reverse mode are dual: Re<v, J u> = Re<vᵀJ, u>", "[autograd][forward_ad][laws]") {
    for (const Case& c : table()) {
        INFO(c.name);
        const Run r = run(c);
        tensor_list leaves;
        for (const Tensor& p : r.primals) leaves.push_back(p.clone().requires_grad_(true));
        const tensor_list ys = c.f(leaves);
        tensor_list outs, vs;
        double lhs = 0;
        for (std::size_t k = 0; k < ys.size(); ++k) {
            // A fixed, nowhere-zero weight per output element.
            Tensor v = gradc::cos(gradc::arange(static_cast<double>(ys[k].numel())) * (1.3 + 0.2 * static_cast<double>(k)) + 0.4)
                           .reshape(ys[k].sizes());
            if (ys[k].is_complex()) v = gradc::complex(v, gradc::sin(v * 3.0));
            lhs += inner(v, r.output_tangents[k]);
            if (!ys[k].requires_grad()) continue;
            outs.push_back(ys[k]);
            vs.push_back(v);
        }
        const tensor_list g = gradc::autograd::grad(outs, leaves, vs, std::nullopt, false, true);
        double rhs = 0;
        for (std::size_t i = 0; i < g.size(); ++i)
            if (g[i].defined()) rhs += inner(g[i], r.tangents[i]);
        CHECK_THAT(lhs, gradc::test::is_close_to(rhs, 1e-10, 1e-10));
    }
}

TEST_CASE("the JVP is linear in the tangent", "[autograd][forward_ad][laws]") {
    // J(2u - 3w) = 2·Ju - 3·Jw on a composite of several kinds of operations.
    auto f = [](const Tensor& x) {
        return gradc::softmax(gradc::matmul(x, gradc::t(x)), 1).sum({0}) * gradc::prod(x.slice(1, 0, 2), 1).amax();
    };
    const Tensor x = gradc::tensor({{0.5, -1.0, 2.0}, {1.5, 0.25, -0.75}});
    const Tensor u = gradc::tensor({{1.0, 0.5, -2.0}, {0.0, 3.0, 1.0}});
    const Tensor w = gradc::tensor({{-0.5, 2.0, 1.0}, {0.25, -1.0, 0.5}});
    fwd::dual_level level;
    auto jvp = [&](const Tensor& dir) { return fwd::unpack_dual(f(fwd::make_dual(x, dir))).tangent; };
    CHECK_THAT(values(jvp(2.0 * u - 3.0 * w)), approx(values(2.0 * jvp(u) - 3.0 * jvp(w)), 1e-10, 1e-12));
}
