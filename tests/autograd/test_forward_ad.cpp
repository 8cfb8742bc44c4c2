// Forward-mode AD (forward_ad.hpp): dual levels and dual tensors, tangents of views and
// in-place operations, custom functions, and forward over reverse (Hessian-vector
// products). The JVPs of the operations themselves are in test_forward_ad_ops.cpp.
#include <any>
#include <complex>
#include <memory>
#include <string>
#include <vector>

#include "reference/forward_ad_data.hpp"
#include "support.hpp"

using namespace testing;
using Catch::Matchers::Contains;
using gradc::Tensor;
using gradc::tensor_list;
using gradc::autograd::AutogradContext;
namespace fwd = gradc::autograd::forward_ad;

namespace {

const std::vector<double>& fwd_ref(const std::string& name) { return forward_ad_reference::data().at(name); }

Tensor tangent(const Tensor& t) { return fwd::unpack_dual(t).tangent; }

}  // namespace

// ---- levels and dual tensors ------------------------------------------------------------

TEST_CASE("tangents live as long as their dual level", "[autograd][forward_ad]") {
    const Tensor p = gradc::tensor({1.0, 2.0, 3.0});
    Tensor kept;
    std::weak_ptr<gradc::TensorImpl> kept_tangent;
    CHECK_FALSE(fwd::is_level_active());
    {
        fwd::dual_level level;
        CHECK(fwd::is_level_active());
        const Tensor x = fwd::make_dual(p, gradc::tensor({1.0, 0.0, -1.0}));
        kept = x * x;
        CHECK_THAT(values(tangent(kept)), approx({2.0, 0.0, -6.0}));
        kept_tangent = tangent(kept).impl();
    }
    CHECK_FALSE(fwd::is_level_active());
    CHECK_FALSE(tangent(kept).defined());
    CHECK(kept_tangent.expired());  // dropped with the level, not merely hidden
    fwd::dual_level next;
    CHECK_FALSE(tangent(kept).defined());  // a tangent of an earlier level never comes back
    CHECK_THAT(values(kept), approx({1.0, 4.0, 9.0}));
}

TEST_CASE("dual levels do not nest", "[autograd][forward_ad][errors]") {
    fwd::dual_level outer;
    CHECK_THAT(error_of([] { fwd::dual_level inner; }), Contains("nested") && Contains("dual_level"));
    CHECK(fwd::is_level_active());  // the failed attempt left the outer level alone
}

TEST_CASE("make_dual checks its arguments", "[autograd][forward_ad][errors]") {
    const Tensor p = gradc::tensor({1.0, 2.0});
    CHECK_THAT(error_of([&] { fwd::make_dual(p, gradc::ones({2})); }), Contains("make_dual") && Contains("no dual level"));
    fwd::dual_level level;
    CHECK_THAT(error_of([&] { fwd::make_dual(p, gradc::ones({3})); }),
               Contains("make_dual") && Contains("[3]") && Contains("[2]"));
    CHECK_THAT(error_of([&] { fwd::make_dual(p, gradc::ones({2}, gradc::dtype(gradc::kFloat32))); }),
               Contains("make_dual") && Contains("Float") && Contains("Double"));
    CHECK_THAT(error_of([&] { fwd::make_dual(gradc::tensor_i64({1, 2}), gradc::ones({2})); }),
               Contains("make_dual") && Contains("floating point or complex"));
    const Tensor d = fwd::make_dual(p, gradc::ones({2}));
    CHECK_THAT(error_of([&] { fwd::make_dual(d, gradc::ones({2})); }), Contains("make_dual") && Contains("already has a tangent"));
    CHECK_THAT(error_of([&] { fwd::make_dual(p, d); }), Contains("make_dual") && Contains("tangent itself"));
}

TEST_CASE("unpack_dual of a tensor without tangent", "[autograd][forward_ad]") {
    const Tensor p = gradc::tensor({1.0, 2.0});
    auto outside = fwd::unpack_dual(p);
    CHECK(outside.primal.is_same(p));
    CHECK_FALSE(outside.tangent.defined());
    fwd::dual_level level;
    auto inside = fwd::unpack_dual(p * 2.0);
    CHECK_FALSE(inside.tangent.defined());
    CHECK_THAT(values(inside.primal), approx({2.0, 4.0}));
    // Integer results of dual tensors carry no tangent either.
    const Tensor d = fwd::make_dual(p, gradc::ones({2}));
    CHECK_FALSE(tangent(d > 1.5).defined());
    CHECK_FALSE(tangent(std::get<1>(gradc::max(d, 0))).defined());
}

TEST_CASE("a dual tensor is a view of its primal; its tangent is the one given", "[autograd][forward_ad][views]") {
    fwd::dual_level level;
    Tensor p = gradc::tensor({1.0, 2.0, 3.0});
    Tensor u = gradc::tensor({0.5, -1.0, 2.0});
    const Tensor d = fwd::make_dual(p, u);
    CHECK(d.is_view());
    CHECK(d._base().is_same(p));
    CHECK(tangent(d).is_same(u));
    // unpack_dual's primal: the same memory, without the tangent.
    auto [primal, t] = fwd::unpack_dual(d);
    CHECK(primal.data_ptr<double>() == p.data_ptr<double>());
    CHECK_FALSE(tangent(primal).defined());
    // A tangent laid out unlike its primal is copied into the primal's layout.
    const Tensor wide = gradc::tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
    const Tensor column = wide.select(1, 1);
    const Tensor dc = fwd::make_dual(column, gradc::tensor({7.0, 8.0}));
    CHECK(tangent(dc).strides() == column.strides());
    CHECK(tangent(dc).storage_offset() == column.storage_offset());
    CHECK_THAT(values(tangent(dc)), approx({7.0, 8.0}));
}

TEST_CASE("tangents pass through no-grad mode, and detach drops them", "[autograd][forward_ad]") {
    fwd::dual_level level;
    const Tensor d = fwd::make_dual(gradc::tensor({1.0, 2.0}), gradc::tensor({1.0, 1.0}));
    gradc::NoGradGuard no_grad;
    CHECK_THAT(values(tangent(d * d)), approx({2.0, 4.0}));
    CHECK_FALSE(tangent(d.detach()).defined());
}

// ---- views and in-place operations -------------------------------------------------------

TEST_CASE("the tangent of a view is the same view of the tangent", "[autograd][forward_ad][views]") {
    fwd::dual_level level;
    Tensor u = gradc::tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
    const Tensor d = fwd::make_dual(gradc::zeros({2, 3}), u);
    const Tensor v = d.t().select(0, 2);
    CHECK_THAT(values(tangent(v)), approx({3.0, 6.0}));
    {
        gradc::NoGradGuard no_grad;
        u.select(1, 2).fill_(-1.0);  // writes through to the view's tangent
    }
    CHECK_THAT(values(tangent(v)), approx({-1.0, -1.0}));
}

TEST_CASE("in-place operations update tangents in place, on views and bases", "[autograd][forward_ad][inplace]") {
    SECTION("the tangent given to make_dual is updated, as in PyTorch") {
        fwd::dual_level level;
        const Tensor u = gradc::tensor({0.5, -1.0, 2.0});
        Tensor d = fwd::make_dual(gradc::tensor({1.0, 2.0, 3.0}), u);
        d.mul_(3.0);
        d.slice(0, 1).mul_(gradc::tensor({2.0, -1.0}));
        CHECK_THAT(values(fwd::unpack_dual(d).primal), approx(fwd_ref("inplace.dual.primal")));
        CHECK_THAT(values(tangent(d)), approx(fwd_ref("inplace.dual.tangent")));
        CHECK_THAT(values(u), approx(fwd_ref("inplace.dual.tangent")));
    }
    SECTION("a base without tangent gets one through its view") {
        fwd::dual_level level;
        Tensor base = gradc::zeros({4});
        const Tensor early = base.slice(0, 2);  // made before the base had a tangent
        base.slice(0, 1, 3).copy_(fwd::make_dual(gradc::tensor({1.0, 2.0}), gradc::tensor({3.0, 4.0})));
        CHECK_THAT(values(tangent(base)), approx({0.0, 3.0, 4.0, 0.0}));
        CHECK_THAT(values(tangent(early)), approx({4.0, 0.0}));
    }
    SECTION("an in-place operation through a view of a dual base") {
        fwd::dual_level level;
        Tensor x = fwd::make_dual(gradc::tensor({1.0, 2.0, 3.0}), gradc::tensor({1.0, 1.0, 1.0})).clone();
        x.slice(0, 0, 2).mul_(fwd::make_dual(gradc::tensor({5.0, 7.0}), gradc::tensor({10.0, 100.0})));
        // d(x₀·y₀) = x₀ dy₀ + y₀ dx₀ = 1·10 + 5·1, d(x₁·y₁) = 2·100 + 7·1.
        CHECK_THAT(values(tangent(x)), approx({15.0, 207.0, 1.0}));
    }
    SECTION("an in-place operation without tangent inputs zeroes the tangent where it writes") {
        fwd::dual_level level;
        Tensor x = fwd::make_dual(gradc::tensor({1.0, 2.0}), gradc::tensor({1.0, 1.0})).clone();
        x.select(0, 1).fill_(5.0);
        CHECK_THAT(values(tangent(x)), approx({1.0, 0.0}));
    }
}

// ---- custom functions -------------------------------------------------------------------

namespace {

// y = x³ with a jvp, and the same without one (forward mode transposes its backward).
struct CubeJvp : gradc::autograd::Function<CubeJvp> {
    static Tensor forward(AutogradContext* ctx, Tensor x) {
        ctx->save_for_backward({x});
        return x * x * x;
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        const Tensor x = ctx->get_saved_variables()[0];
        return {3.0 * x * x * g[0]};
    }
    static tensor_list jvp(AutogradContext* ctx, tensor_list t) {
        const Tensor x = ctx->get_saved_variables()[0];
        return {3.0 * x * x * t[0]};
    }
};

struct Cube : gradc::autograd::Function<Cube> {
    static Tensor forward(AutogradContext* ctx, Tensor x) { return CubeJvp::forward(ctx, x); }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) { return CubeJvp::backward(ctx, std::move(g)); }
};

struct CubeOnce : gradc::autograd::Function<CubeOnce> {
    static constexpr bool once_differentiable = true;
    static Tensor forward(AutogradContext* ctx, Tensor x) { return CubeJvp::forward(ctx, x); }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) { return CubeJvp::backward(ctx, std::move(g)); }
};

struct CubeOnceJvp : gradc::autograd::Function<CubeOnceJvp> {
    static constexpr bool once_differentiable = true;
    static Tensor forward(AutogradContext* ctx, Tensor x) { return CubeJvp::forward(ctx, x); }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) { return CubeJvp::backward(ctx, std::move(g)); }
    static tensor_list jvp(AutogradContext* ctx, tensor_list t) { return CubeJvp::jvp(ctx, std::move(t)); }
};

// (a·x + k, a + x) with a number between the tensors: one tangent per forward argument.
struct AffinePair : gradc::autograd::Function<AffinePair> {
    static tensor_list forward(AutogradContext* ctx, Tensor a, double k, Tensor x) {
        ctx->save_for_backward({a, x});
        return {a * x + k, a + x};
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        const auto s = ctx->get_saved_variables();
        return {s[1] * g[0] + g[1], Tensor(), s[0] * g[0] + g[1]};
    }
    static tensor_list jvp(AutogradContext* ctx, tensor_list t) {
        CHECK(t.size() == 3);
        CHECK_FALSE(t[1].defined());
        CHECK(t[0].defined());  // materialised zeros for an input without tangent
        const auto s = ctx->get_saved_variables();
        return {t[0] * s[1] + s[0] * t[2], t[0] + t[2]};
    }
};

// The same without jvp: the fallback must consult needs_input_grad like the engine does.
struct AffinePairNoJvp : gradc::autograd::Function<AffinePairNoJvp> {
    static tensor_list forward(AutogradContext* ctx, Tensor a, double k, Tensor x) { return AffinePair::forward(ctx, a, k, x); }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        const auto s = ctx->get_saved_variables();
        return {ctx->needs_input_grad(0) ? s[1] * g[0] + g[1] : Tensor(), Tensor(),
                ctx->needs_input_grad(1) ? s[0] * g[0] + g[1] : Tensor()};
    }
};

// Computes x³ but declares the JVP of 2x.
struct Doubling : gradc::autograd::Function<Doubling> {
    static Tensor forward(AutogradContext*, Tensor x) { return x * x * x; }
    static tensor_list backward(AutogradContext*, tensor_list g) { return {g[0] * 2.0}; }
    static tensor_list jvp(AutogradContext*, tensor_list t) { return {t[0] * 2.0}; }
};

struct WrongCount : gradc::autograd::Function<WrongCount> {
    static Tensor forward(AutogradContext*, Tensor x) { return x * 2.0; }
    static tensor_list backward(AutogradContext*, tensor_list g) { return {g[0] * 2.0}; }
    static tensor_list jvp(AutogradContext*, tensor_list t) { return {t[0], t[0]}; }
};

}  // namespace

TEST_CASE("custom functions: jvp when defined, else the transposed backward", "[autograd][forward_ad][custom]") {
    fwd::dual_level level;
    const Tensor x = fwd::make_dual(gradc::tensor({1.0, -2.0, 0.5}), gradc::tensor({1.0, 0.5, -4.0}));
    const std::vector<double> expected{3.0, 6.0, -3.0};  // 3x²·u
    CHECK_THAT(values(tangent(CubeJvp::apply(x))), approx(expected));
    CHECK_THAT(values(tangent(Cube::apply(x))), approx(expected));
    CHECK_THAT(values(tangent(CubeOnceJvp::apply(x))), approx(expected));
    // The jvp, not the operations inside forward, decides the tangent.
    CHECK_THAT(values(tangent(Doubling::apply(x))), approx({2.0, 1.0, -8.0}));
    SECTION("several outputs, a number argument, an input without tangent") {
        const Tensor a = gradc::tensor({2.0, 3.0, 4.0});
        auto r = AffinePair::apply(a, 0.5, x);
        CHECK_THAT(values(tangent(r[0])), approx({2.0, 1.5, -16.0}));
        CHECK_THAT(values(tangent(r[1])), approx({1.0, 0.5, -4.0}));
        auto n = AffinePairNoJvp::apply(a, 0.5, x);
        CHECK_THAT(values(tangent(n[0])), approx({2.0, 1.5, -16.0}));
        CHECK_THAT(values(tangent(n[1])), approx({1.0, 0.5, -4.0}));
    }
    SECTION("a once-differentiable function without jvp cannot be transposed") {
        CHECK_THAT(error_of([&] { CubeOnce::apply(x); }), Contains("CubeOnce") && Contains("once_differentiable") && Contains("jvp"));
    }
    SECTION("a jvp must return one tangent per output") {
        CHECK_THAT(error_of([&] { WrongCount::apply(x); }), Contains("WrongCount") && Contains("jvp returned 2"));
    }
}

// ---- higher order -----------------------------------------------------------------------

namespace {
Tensor scalar_f(const Tensor& t) {
    using namespace gradc;
    return sum(sin(t) * pow(t, 2.0)) + prod(t) + logsumexp(t, {0}) + sum(t.slice(0, 0, 2) * t.slice(0, 2));
}
}  // namespace

TEST_CASE("forward over reverse: Hessian-vector products", "[autograd][forward_ad][higher_order]") {
    const Tensor x = gradc::from_vector(fwd_ref("hvp.x"), {4});
    const Tensor v = gradc::from_vector(fwd_ref("hvp.v"), {4});
    SECTION("the tangent of the gradient") {
        fwd::dual_level level;
        Tensor leaf = x.clone().requires_grad_(true);
        const Tensor g = gradc::autograd::grad({scalar_f(fwd::make_dual(leaf, v))}, {leaf}, {}, std::nullopt, true)[0];
        CHECK_THAT(values(fwd::unpack_dual(g).primal), approx(fwd_ref("hvp.grad"), 1e-10, 1e-12));
        CHECK_THAT(values(tangent(g)), approx(fwd_ref("hvp.Hv"), 1e-10, 1e-12));
        // Without create_graph too: the backward's operations still carry tangents.
        const Tensor g2 = gradc::autograd::grad({scalar_f(fwd::make_dual(leaf, v))}, {leaf})[0];
        CHECK_THAT(values(tangent(g2)), approx(fwd_ref("hvp.Hv"), 1e-10, 1e-12));
    }
    SECTION("reverse over forward: the gradient of the directional derivative") {
        Tensor leaf = x.clone().requires_grad_(true);
        Tensor jv;
        {
            fwd::dual_level level;
            jv = tangent(scalar_f(fwd::make_dual(leaf, v)));
        }
        CHECK_THAT(values(gradc::autograd::grad({jv}, {leaf})[0]), approx(fwd_ref("hvp.Hv"), 1e-10, 1e-12));
    }
    SECTION("through saved outputs and custom functions") {
        // f = Σ exp(x) + Σ x³: H·v = (exp(x) + 6x)·v; exp saves its output, Cube its input.
        fwd::dual_level level;
        Tensor leaf = x.clone().requires_grad_(true);
        const Tensor d = fwd::make_dual(leaf, v);
        for (int with_jvp = 0; with_jvp < 2; ++with_jvp) {
            const Tensor cube = with_jvp ? CubeJvp::apply(d) : Cube::apply(d);
            const Tensor g = gradc::autograd::grad({gradc::sum(gradc::exp(d)) + gradc::sum(cube)}, {leaf})[0];
            gradc::NoGradGuard no_grad;
            CHECK_THAT(values(tangent(g)), approx(values((gradc::exp(x) + 6.0 * x) * v), 1e-12, 1e-12));
        }
    }
}

TEST_CASE("forward over reverse through saved-tensor hooks", "[autograd][forward_ad][higher_order][saved]") {
    // Hooked saved tensors come back as new aliases: they must get their tangents back.
    // f = Σ sin(x)·x: H = diag(2cos x - x sin x).
    const Tensor x = gradc::tensor({0.3, -1.2, 2.0});
    const Tensor v = gradc::tensor({1.0, 0.5, -2.0});
    fwd::dual_level level;
    Tensor leaf = x.clone().requires_grad_(true);
    const Tensor d = fwd::make_dual(leaf, v);
    Tensor g;
    {
        gradc::autograd::SavedTensorsHooks hooks([](const Tensor& t) -> std::any { return t.clone(); },
                                                 [](const std::any& a) { return std::any_cast<Tensor>(a); });
        const Tensor y = gradc::sum(gradc::sin(d) * d);
        g = gradc::autograd::grad({y}, {leaf})[0];
    }
    gradc::NoGradGuard no_grad;
    CHECK_THAT(values(tangent(g)), approx(values((2.0 * gradc::cos(x) - x * gradc::sin(x)) * v), 1e-12, 1e-12));
}

TEST_CASE("forward-mode Jacobian columns equal reverse-mode Jacobian rows", "[autograd][forward_ad][laws]") {
    // A real and a complex input, a real and a complex output. Entry (r, k) for output part
    // p (real or imaginary part) and input element k: forward mode gives ∂y/∂a_k and
    // ∂y/∂b_k (tangents along the real and the imaginary direction), reverse mode the
    // notes' 2·CW = ∂Re_p(y_r)/∂a_k + i·∂Re_p(y_r)/∂b_k from the output gradient e_r
    // (real part) or i·e_r (imaginary part).
    using c = std::complex<double>;
    const tensor_list inputs{gradc::tensor({0.4, -1.1, 0.7}), gradc::tensor({c(0.5, 0.8), c(-1.2, 0.4), c(0.3, -0.9)})};
    auto f = [](const tensor_list& in) -> tensor_list {
        const Tensor mixed = gradc::exp(in[1]) * in[0] + gradc::conj(in[1]) * in[1].sum();
        return {gradc::softmax(gradc::abs(mixed), 0), mixed.slice(0, 0, 2) * in[0].slice(0, 1)};
    };
    auto element = [](const Tensor& t, std::int64_t i) { return t.reshape({-1})[i].item<c>(); };
    // e_k, or i·e_k along the imaginary direction of a complex input.
    auto one_hot = [](const Tensor& like, std::int64_t k, bool imaginary) {
        std::vector<double> re(static_cast<std::size_t>(like.numel()), 0.0), im = re;
        (imaginary ? im : re)[static_cast<std::size_t>(k)] = 1.0;
        const Tensor t = gradc::from_vector(re, like.sizes());
        return like.is_complex() ? gradc::complex(t, gradc::from_vector(im, like.sizes())) : t;
    };
    auto part = [](c v, int p) { return p == 0 ? v.real() : v.imag(); };
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const bool cplx = inputs[i].is_complex();
        for (std::int64_t k = 0; k < inputs[i].numel(); ++k) {
            // Forward: the columns along the real and (complex input) imaginary direction.
            tensor_list along_a, along_b;
            for (int dir = 0; dir < (cplx ? 2 : 1); ++dir) {
                fwd::dual_level level;
                tensor_list duals;
                for (std::size_t m = 0; m < inputs.size(); ++m)
                    duals.push_back(fwd::make_dual(inputs[m], m == i ? one_hot(inputs[m], k, dir == 1) : gradc::zeros_like(inputs[m])));
                for (const Tensor& y : f(duals)) (dir == 0 ? along_a : along_b).push_back(tangent(y).detach());
            }
            // Reverse: one pass per output element and part.
            tensor_list leaves;
            for (const Tensor& x : inputs) leaves.push_back(x.clone().requires_grad_(true));
            const tensor_list ys = f(leaves);
            for (std::size_t o = 0; o < ys.size(); ++o)
                for (int p = 0; p < (ys[o].is_complex() ? 2 : 1); ++p)
                    for (std::int64_t r = 0; r < ys[o].numel(); ++r) {
                        Tensor v = gradc::zeros_like(ys[o]);
                        {
                            gradc::NoGradGuard no_grad;
                            v.reshape({-1})[r].fill_(1.0);
                            if (p == 1) v = v * gradc::tensor({c(0, 1)});
                        }
                        const Tensor g = gradc::autograd::grad({ys[o]}, {leaves[i]}, {v}, true)[0];
                        const c reverse = element(g, k);
                        const c forward(part(element(along_a[o], r), p), cplx ? part(element(along_b[o], r), p) : 0.0);
                        INFO("input " << i << " element " << k << ", output " << o << " part " << p << " element " << r);
                        CHECK_THAT(forward.real(), gradc::test::is_close_to(reverse.real(), 1e-12, 1e-12));
                        CHECK_THAT(forward.imag(), gradc::test::is_close_to(cplx ? reverse.imag() : 0.0, 1e-12, 1e-12));
                    }
        }
    }
}
