// Table-driven gradcheck of every differentiable operation of the dynamic mode:
// one table, each entry run through gradcheck in slow and fast mode and gradgradcheck
// (slow and fast), reverse and forward mode (check_forward_ad: every operation's JVP, and
// in gradgradcheck the JVPs of its backward formula), on real float64 inputs and, where
// the operation is defined for complex, on complex128 inputs. An entry marked real-only must throw on complex inputs, so an
// operation that gains complex support must gain its complex case here.
//
// "A new operation cannot be added without it": the last test case enumerates the
// operations the dynamic mode records — every name passed to autograd::record or
// record_single_output (and to the helpers that forward a name to them) in src/autograd,
// plus every rule of
// gradc::rules::all — and requires each node name to appear in the graph of some entry
// of the table. Custom functions (gradc::autograd::Function) are tested elsewhere.
#include <algorithm>
#include <complex>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <boost/hana/for_each.hpp>
#include <catch2/catch.hpp>

#include <gradc/autograd.hpp>
#include <gradc/check.hpp>
#include <gradc/rules.hpp>

extern const char* const gradc_check_source_root;

using gradc::Shape;
using gradc::Tensor;
using gradc::tensor_list;
using gradc::autograd::GradcheckOptions;
namespace ag = gradc::autograd;

namespace {

// Deterministic, pairwise distinct values in [lo, hi] (no ties for max/min/amax).
std::vector<double> values(std::int64_t n, double lo, double hi, int salt) {
    std::vector<double> v;
    for (std::int64_t k = 0; k < n; ++k) {
        double f = 0.6180339887498949 * static_cast<double>(k + 1 + 13 * salt);
        f -= static_cast<double>(static_cast<std::int64_t>(f));
        v.push_back(lo + (hi - lo) * f);
    }
    return v;
}

std::int64_t numel(const Shape& s) {
    std::int64_t n = 1;
    for (auto d : s) n *= d;
    return n;
}

/// A leaf requiring grad of shape `s`, real part in [lo, hi]; complex: imaginary part in
/// [-0.6, 0.6].
Tensor in(const Shape& s, double lo, double hi, bool cplx, int salt) {
    Tensor re = gradc::from_vector(values(numel(s), lo, hi, salt), s);
    if (!cplx) return re.requires_grad_(true), re;
    Tensor im = gradc::from_vector(values(numel(s), -0.6, 0.6, salt + 5), s);
    Tensor z = gradc::complex(re, im);
    z.requires_grad_(true);
    return z;
}

struct Case {
    std::string name;
    /// Inputs: `cplx` asks for complex ones (only called with true when `complex`).
    std::function<tensor_list(bool cplx)> inputs;
    ag::GradcheckFunction fn;
    /// Defined for complex inputs. If false, the function must throw on complex inputs.
    bool complex = false;
    /// Defined for real inputs (false: complex only, such as imag).
    bool real = true;
};

using F = ag::GradcheckFunction;
using I = std::function<tensor_list(bool)>;

/// Inputs: one tensor of shape s in [lo, hi].
I one(Shape s, double lo = -1.5, double hi = 1.5) {
    return [=](bool c) -> tensor_list { return {in(s, lo, hi, c, 0)}; };
}
I two(Shape s0, Shape s1, double lo = -1.5, double hi = 1.5) {
    return [=](bool c) -> tensor_list { return {in(s0, lo, hi, c, 0), in(s1, lo, hi, c, 1)}; };
}
I two_ranges(Shape s0, double lo0, double hi0, Shape s1, double lo1, double hi1) {
    return [=](bool c) -> tensor_list { return {in(s0, lo0, hi0, c, 0), in(s1, lo1, hi1, c, 1)}; };
}

F unary(Tensor (*f)(const Tensor&)) {
    return [f](const tensor_list& x) -> tensor_list { return {f(x[0])}; };
}
F binary(Tensor (*f)(const Tensor&, const Tensor&)) {
    return [f](const tensor_list& x) -> tensor_list { return {f(x[0], x[1])}; };
}

/// The range of tensor values for a rule's test domain (rules/rule.hpp): inside the
/// domain, away from its ends, and (for binary rules) from the origin and ties.
std::pair<double, double> range_of(gradc::rules::test_domain d) {
    using enum gradc::rules::test_domain;
    switch (d) {
        case positive: return {0.3, 2.0};
        case above_minus_one: return {-0.6, 2.0};
        case above_one: return {1.2, 3.0};
        case inside_unit: return {-0.8, 0.8};
        case probability: return {0.1, 0.9};
        case moderate: return {-1.0, 1.0};
        case everywhere: break;
    }
    return {-1.5, 1.5};
}

/// Whether the dynamic mode accepts complex tensors for rule R: the rules with a complex
/// form, and abs (the modulus of a complex tensor, which is not holomorphic).
template <class R>
constexpr bool accepts_complex = gradc::rules::has_complex_form<R> || std::is_same_v<R, gradc::rules::abs>;

std::vector<Case> table() {
    const Shape v3{3}, m23{2, 3}, m32{3, 2}, b3{2, 3, 4};
    std::vector<Case> t;
    auto add = [&](std::string name, I inputs, F fn, bool cplx, bool real = true) {
        t.push_back({std::move(name), std::move(inputs), std::move(fn), cplx, real});
    };

    // Elementwise arithmetic, with broadcasting ([2,3] with [3] and [2,1]) and C++ scalars.
    add("add broadcast", two(m23, v3), [](const tensor_list& x) -> tensor_list { return {x[0] + x[1]}; }, true);
    add("add alpha", two(m23, {2, 1}), [](const tensor_list& x) -> tensor_list { return {gradc::add(x[0], x[1], 2.5)}; }, true);
    add("sub broadcast", two(m23, {2, 1}), [](const tensor_list& x) -> tensor_list { return {gradc::sub(x[0], x[1], 0.5)}; }, true);
    add("mul broadcast", two(m23, v3), [](const tensor_list& x) -> tensor_list { return {x[0] * x[1]}; }, true);
    add("div broadcast", two_ranges(m23, -1.5, 1.5, v3, 0.5, 2.0), [](const tensor_list& x) -> tensor_list { return {x[0] / x[1]}; }, true);
    add("scalar ops", one(m23), [](const tensor_list& x) -> tensor_list { return {2.0 * x[0] - 1.5, 3.0 - x[0] / 2.0 + 1.0 * x[0]}; }, true);
    add("scalar / tensor", one(v3, 0.5, 2.0), [](const tensor_list& x) -> tensor_list { return {2.0 / x[0]}; }, true);
    add("neg", one(m23), [](const tensor_list& x) -> tensor_list { return {-x[0], gradc::neg(x[0])}; }, true);
    add("square", one(m23), unary(gradc::square), true);
    add("pow tensor^tensor", two_ranges(m23, 0.5, 2.0, v3, -1.5, 1.5), binary(gradc::pow), false);
    add("pow tensor^double", one(m23, 0.5, 2.0), [](const tensor_list& x) -> tensor_list { return {gradc::pow(x[0], 2.5), gradc::pow(x[0], 3.0)}; }, false);
    add("pow double^tensor", one(m23), [](const tensor_list& x) -> tensor_list { return {gradc::pow(1.7, x[0])}; }, false);

    // abs of negatives (the generated entry below takes the everywhere range).
    add("abs of negatives", one(m23, -1.5, -0.2), unary(gradc::abs), true);

    // Every primitive of the rule table, from its entry: inputs in the range of the domain
    // it declares, complex inputs where it has a complex form (binary ones broadcast [2,3]
    // with [3]). `where` has its own entry above.
    boost::hana::for_each(gradc::rules::all, [&](auto rule) {
        using R = typename decltype(rule)::type;
        if constexpr (!std::is_same_v<R, gradc::rules::where>) {
            const auto [lo, hi] = range_of(R::domain);
            if constexpr (R::arity == 1) {
                add(std::string("rule ") + std::string(R::name), one(m23, lo, hi),
                    [](const tensor_list& x) -> tensor_list { return {gradc::rule_tensor_op<R>::apply(x[0])}; },
                    accepts_complex<R>);
            } else {
                add(std::string("rule ") + std::string(R::name), two(m23, v3, lo, hi),
                    [](const tensor_list& x) -> tensor_list { return {gradc::rule_tensor_op<R>::apply(x[0], x[1])}; },
                    accepts_complex<R>);
            }
        }
    });

    // Piecewise: clamp (both bounds, one bound), where (broadcast condition).
    add("clamp", one(m23), [](const tensor_list& x) -> tensor_list {
        return {gradc::clamp(x[0], -0.51, 0.73), gradc::clamp(x[0], std::nullopt, 0.37)};
    }, false);
    add("clamp_min/max", one(m23), [](const tensor_list& x) -> tensor_list {
        return {gradc::clamp_min(x[0], -0.21), gradc::clamp_max(x[0], 0.43)};
    }, false);
    add("where", two(m23, v3), [](const tensor_list& x) -> tensor_list {
        const Tensor cond = gradc::tensor({1.0, 0.0, 1.0}) > 0.5;
        return {gradc::where(cond, x[0], x[1])};
    }, true);

    // Normalisations.
    add("softmax", one(m23), [](const tensor_list& x) -> tensor_list { return {gradc::softmax(x[0], 1), gradc::softmax(x[0], 0)}; }, false);
    add("log_softmax", one(m23), [](const tensor_list& x) -> tensor_list { return {gradc::log_softmax(x[0], -1)}; }, false);

    // Reductions: all, over dims, keepdim.
    add("sum", one(b3), [](const tensor_list& x) -> tensor_list {
        return {gradc::sum(x[0]), gradc::sum(x[0], {1}), gradc::sum(x[0], {0, 2}, true)};
    }, true);
    add("mean", one(b3), [](const tensor_list& x) -> tensor_list {
        return {gradc::mean(x[0]), gradc::mean(x[0], {2}), gradc::mean(x[0], {-1, 0}, true)};
    }, true);
    add("prod", one(m23, 0.5, 1.5), [](const tensor_list& x) -> tensor_list {
        return {gradc::prod(x[0]), gradc::prod(x[0], 1), gradc::prod(x[0], 0, true)};
    }, true);
    add("amax/amin", one(b3), [](const tensor_list& x) -> tensor_list {
        return {gradc::amax(x[0]), gradc::amax(x[0], {1}), gradc::amin(x[0], {0, 2}, true), gradc::amin(x[0])};
    }, false);
    add("max/min all", one(m23), [](const tensor_list& x) -> tensor_list { return {gradc::max(x[0]), gradc::min(x[0])}; }, false);
    add("max/min dim", one(b3), [](const tensor_list& x) -> tensor_list {
        auto [mx, imx] = gradc::max(x[0], 1);
        auto [mn, imn] = gradc::min(x[0], 2, true);
        return {mx, imx, mn, imn};
    }, false);
    add("norm", one(m23), [](const tensor_list& x) -> tensor_list {
        return {gradc::norm(x[0]), gradc::norm(x[0], 2, {1}), gradc::norm(x[0], 2, {0}, true)};
    }, true);
    add("var/std", one(b3), [](const tensor_list& x) -> tensor_list {
        return {gradc::var(x[0]), gradc::var(x[0], {1}, false), gradc::std(x[0]), gradc::std(x[0], {0, 2}, true, true)};
    }, true);
    add("logsumexp", one(b3), [](const tensor_list& x) -> tensor_list {
        return {gradc::logsumexp(x[0], {1}), gradc::logsumexp(x[0], {0, 2}, true)};
    }, false);

    // Linear algebra.
    add("mm", two(m23, m32), binary(gradc::mm), true);
    add("mv", two(m23, v3), binary(gradc::mv), true);
    add("dot", two(v3, v3), binary(gradc::dot), true);
    add("outer", two(v3, {2}), binary(gradc::outer), true);
    add("bmm", two({2, 2, 3}, {2, 3, 2}), binary(gradc::bmm), true);
    add("matmul batch broadcast", two({2, 1, 2, 3}, {3, 3, 2}), binary(gradc::matmul), true);
    add("matmul vector cases", two(v3, m32), [](const tensor_list& x) -> tensor_list {
        return {gradc::matmul(x[0], x[1]), gradc::matmul(gradc::t(x[1]), x[0]), gradc::matmul(x[0], x[0])};
    }, true);

    // Scans, factorisations and solves (the factorisations are real only). Cholesky's
    // gradient is the symmetric one, so its entry factors X Xᵀ + 3I, a symmetric function
    // of its input; the matrices solved with are kept away from singular by + 3I.
    const Shape m33{3, 3};
    add("cumsum", one(b3), [](const tensor_list& x) -> tensor_list { return {gradc::cumsum(x[0], 1), gradc::cumsum(x[0], -1)}; }, true);
    add("cholesky", one(m33), [](const tensor_list& x) -> tensor_list {
        return {gradc::linalg::cholesky(gradc::matmul(x[0], gradc::t(x[0])) + 3.0 * gradc::eye(3))};
    }, false);
    add("solve_triangular", two_ranges(m33, -0.5, 0.5, m32, -1.5, 1.5), [](const tensor_list& x) -> tensor_list {
        const Tensor a = x[0] + 3.0 * gradc::eye(3);
        return {gradc::linalg::solve_triangular(a, x[1], true), gradc::linalg::solve_triangular(a, gradc::t(x[1]), false, false, true)};
    }, false);
    add("solve", two_ranges(m33, -0.5, 0.5, m32, -1.5, 1.5), [](const tensor_list& x) -> tensor_list {
        const Tensor a = x[0] + 3.0 * gradc::eye(3);
        return {gradc::linalg::solve(a, x[1]), gradc::linalg::solve(a, gradc::select(x[1], 1, 0))};
    }, false);
    add("inv/logdet", one(m33, -0.5, 0.5), [](const tensor_list& x) -> tensor_list {
        const Tensor a = x[0] + 3.0 * gradc::eye(3);
        return {gradc::linalg::inv(a), gradc::logdet(a)};
    }, false);

    // Joining and indexing.
    add("cat", two(m23, {1, 3}), [](const tensor_list& x) -> tensor_list {
        return {gradc::cat({x[0], x[1]}, 0), gradc::cat({x[0], x[0]}, 1)};
    }, true);
    add("stack", two(m23, m23), [](const tensor_list& x) -> tensor_list {
        return {gradc::stack({x[0], x[1]}, 0), gradc::stack({x[0], x[1]}, 2)};
    }, true);
    add("index_select", one(m23), [](const tensor_list& x) -> tensor_list {
        return {gradc::index_select(x[0], 1, gradc::tensor_i64({2, 0, 2})), gradc::index_select(x[0], 0, gradc::tensor_i64({1}))};
    }, true);
    add("gather", one(m23), [](const tensor_list& x) -> tensor_list {
        return {gradc::gather(x[0], 1, gradc::from_vector({0, 2, 2, 1}, {2, 2}).to(gradc::kInt64))};
    }, true);
    add("index_add", two(m23, {2, 2}), [](const tensor_list& x) -> tensor_list {
        return {gradc::index_add(x[0], 1, gradc::tensor_i64({2, 0}), x[1])};
    }, true);
    add("scatter_add", two(m23, {2, 2}), [](const tensor_list& x) -> tensor_list {
        return {gradc::scatter_add(x[0], 1, gradc::from_vector({0, 2, 2, 2}, {2, 2}).to(gradc::kInt64), x[1])};
    }, true);

    // Views.
    add("view/reshape/flatten", one(b3), [](const tensor_list& x) -> tensor_list {
        return {x[0].view({6, 4}), gradc::reshape(gradc::t(x[0].view({6, 4})), {3, 8}), gradc::flatten(x[0])};
    }, true);
    add("transpose/t/permute", one(b3), [](const tensor_list& x) -> tensor_list {
        return {gradc::transpose(x[0], 0, 2), gradc::t(gradc::select(x[0], 0, 1)), gradc::permute(x[0], {1, 2, 0})};
    }, true);
    add("slice/select/narrow", one(b3), [](const tensor_list& x) -> tensor_list {
        return {gradc::slice(x[0], 2, 1, 4, 2), gradc::select(x[0], 1, -1), gradc::narrow(x[0], 2, 1, 2), x[0][1]};
    }, true);
    add("expand", one({3, 1}), [](const tensor_list& x) -> tensor_list {
        return {gradc::expand(x[0], {2, 3, 4}), gradc::expand_as(x[0], gradc::zeros({3, 2}))};
    }, true);
    add("squeeze/unsqueeze", one({2, 1, 3}), [](const tensor_list& x) -> tensor_list {
        return {gradc::squeeze(x[0]), gradc::squeeze(x[0], 1), gradc::unsqueeze(x[0], 0), gradc::unsqueeze(x[0], -1)};
    }, true);
    add("as_strided", one(m23), [](const tensor_list& x) -> tensor_list {
        return {gradc::as_strided(x[0], {2, 2}, {1, 2}, 1)};
    }, true);
    add("alias", one(m23), [](const tensor_list& x) -> tensor_list { return {gradc::alias(x[0]) * 2.0}; }, true);

    // Copies and in-place operations (out of place on a clone; on a view: CopySlices).
    add("clone/to", one(m23), [](const tensor_list& x) -> tensor_list { return {x[0].clone() * 1.5, x[0].to(gradc::kComplex128)}; }, false);
    add("in place on a view", two(m23, v3), [](const tensor_list& x) -> tensor_list {
        Tensor c = x[0].clone();
        c.select(0, 1).mul_(x[1]);
        c.slice(1, 0, 1).fill_(0.25);
        Tensor d = x[1].clone();
        d.sin_();
        return {c, d};
    }, true);

    // Every in-place operation, on clones and on views of a clone. They record the node of
    // their out-of-place operation (and CopySlices on views), so the coverage check below
    // cannot see them: this entry lists them by hand.
    add("in place, complex-capable", two(m23, v3), [](const tensor_list& x) -> tensor_list {
        Tensor c = x[0].clone();
        c.add_(x[1], 0.5).sub_(x[1]).mul_(x[1]).add_(0.25).sub_(0.5).mul_(1.5).div_(2.0);
        c.select(0, 0).div_(x[1] + 2.0);
        c.neg_().exp_();
        Tensor d = x[1].clone();
        d.sin_().cos_().sigmoid_().tanh_();
        Tensor e = x[1].clone();
        e.zero_();
        e.slice(0, 1, 3).copy_(x[0].select(0, 1).slice(0, 0, 2));
        return {c, d, e};
    }, true);
    add("in place, real only", one(m23), [](const tensor_list& x) -> tensor_list {
        Tensor c = x[0].clone();
        c.clamp_(-0.61, 0.83);
        Tensor d = x[0].clone();
        d.select(0, 1).relu_();
        return {c, d};
    }, false);

    // 0-dim and zero-size tensors.
    add("0-dim", two({}, m23), [](const tensor_list& x) -> tensor_list {
        return {x[0] * x[1], gradc::exp(x[0]), gradc::sum(x[1] * x[0]), gradc::unsqueeze(x[0], 0)};
    }, true);
    add("zero-size", two({0, 3}, v3), [](const tensor_list& x) -> tensor_list {
        return {gradc::sum(x[0], {0}) + x[1], x[0] * x[1], gradc::cat({x[0], gradc::unsqueeze(x[1], 0)}, 0)};
    }, true);

    // Complex construction and parts (real/imag/conj/abs/angle on complex inputs).
    add("complex(re, im)", [](bool) -> tensor_list { return {in({2, 3}, -1, 1, false, 0), in({3}, -1, 1, false, 1)}; },
        binary(gradc::complex), false);
    add("real/conj", one(m23), [](const tensor_list& x) -> tensor_list { return {gradc::real(x[0]) * 2.0, gradc::conj(x[0])}; }, true);
    add("imag", one(m23), unary(gradc::imag), true, /*real=*/false);
    add("angle", one(m23), unary(gradc::angle), true);
    return t;
}

GradcheckOptions mode(bool fast) {
    GradcheckOptions o;
    o.fast_mode = fast;
    o.check_forward_ad = true;
    return o;
}

// Every node name in the graph behind `outputs`.
void collect_nodes(const tensor_list& outputs, std::set<std::string>& names) {
    std::vector<std::shared_ptr<ag::Node>> stack;
    std::set<const ag::Node*> seen;
    for (const auto& o : outputs)
        if (o.defined() && o.grad_fn()) stack.push_back(o.grad_fn());
    while (!stack.empty()) {
        auto n = stack.back();
        stack.pop_back();
        if (!seen.insert(n.get()).second) continue;
        names.insert(n->name());
        for (const auto& e : n->next_edges())
            if (e.function) stack.push_back(e.function);
    }
}

// The operation names the dynamic mode records: string literals given to record,
// record_single_output, or to the helpers that pass their name
// on to them, in src/autograd.
std::set<std::string> recorded_operations() {
    const std::regex call(R"((?:record(?:_single_output)?|extremum_dim|extremum|reshape_view)\([^;"]*?"([a-z0-9_]+)\")");
    std::set<std::string> ops;
    const std::filesystem::path dir = std::filesystem::path(gradc_check_source_root) / "src" / "autograd";
    for (const auto& f : std::filesystem::recursive_directory_iterator(dir)) {
        const auto ext = f.path().extension();
        if (ext != ".cpp" && ext != ".hpp") continue;
        std::ifstream s(f.path());
        std::stringstream text;
        text << s.rdbuf();
        const std::string src = text.str();
        for (std::sregex_iterator it(src.begin(), src.end(), call), end; it != end; ++it) ops.insert((*it)[1].str());
    }
    return ops;
}

}  // namespace

TEST_CASE("every differentiable dynamic operation passes gradcheck and gradgradcheck, slow and fast, reverse and forward",
          "[check][dynamic][table]") {
    for (const auto& c : table()) {
        for (bool cplx : {false, true}) {
            if (cplx ? !c.complex : !c.real) continue;
            INFO(c.name << (cplx ? " (complex)" : " (real)"));
            for (bool fast : {false, true}) {
                INFO((fast ? "fast mode" : "slow mode"));
                CHECK(ag::gradcheck(c.fn, c.inputs(cplx), mode(fast)));
                CHECK(ag::gradgradcheck(c.fn, c.inputs(cplx), {}, mode(fast)));
            }
        }
    }
}

TEST_CASE("a table entry marked real-only is undefined for complex inputs", "[check][dynamic][table][complex]") {
    // Keeps the complex flags honest: an operation that becomes defined for complex must get
    // its complex case in the table. Entries whose inputs are real by construction (complex(re, im))
    // or that only convert to complex are skipped.
    for (const auto& c : table()) {
        if (c.complex || c.name == "complex(re, im)" || c.name == "clone/to") continue;
        INFO(c.name);
        tensor_list z;
        for (const auto& x : c.inputs(false)) z.push_back(gradc::complex(x.detach(), gradc::zeros_like(x.detach()) + 0.25));
        CHECK_THROWS_AS(c.fn(z), gradc::Error);
    }
}

TEST_CASE("no recorded dynamic operation and no rule of gradc::rules::all is missing from the table", "[check][dynamic][table]") {
    std::set<std::string> covered;
    for (const auto& c : table()) {
        if (c.real) collect_nodes(c.fn(c.inputs(false)), covered);
        if (c.complex) collect_nodes(c.fn(c.inputs(true)), covered);
    }
    std::set<std::string> required;
    for (const auto& op : recorded_operations()) required.insert(gradc::autograd::backward_node_name(op));
    boost::hana::for_each(gradc::rules::all, [&](auto t) {
        using R = typename decltype(t)::type;
        required.insert(gradc::autograd::backward_node_name(R::name));
    });
    // The scan must find the operations: guards against a wrong source root or a renamed
    // record function silently making this test vacuous.
    CHECK(required.size() >= 60);
    CHECK(required.count("MmBackward") == 1);
    CHECK(required.count("SelectBackward") == 1);
    // Internal nodes, not operations: the backward of as_strided when differentiated again
    // (covered by gradgradcheck of the views) is recorded, but never by a user call.
    const std::set<std::string> internal{"AsStridedScatterBackward"};
    for (const auto& n : required) {
        if (internal.count(n)) continue;
        INFO("operation " << n << " is recorded by the dynamic mode but has no entry in the table of test_dynamic_ops.cpp");
        CHECK(covered.count(n) == 1);
    }
}
