// gradcheck and gradgradcheck for the dynamic mode (PyTorch's "Gradcheck mechanics"
// notes): the entry points, and the problem they check (which inputs and outputs take
// part, and the function evaluated at the inputs). Reverse mode (vᵀJ, row by row) and
// forward mode (J·u, column by column, with dual tensors) are each compared with the same
// numerical Jacobian; gradcheck_internal.hpp lists the files that do each part.

#include <gradc/autograd/warning.hpp>
#include <gradc/check/gradcheck.hpp>

#include <cmath>
#include <string>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/engine.hpp>
#include <gradc/autograd/forward_ad.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "gradcheck_internal.hpp"

namespace gradc::autograd {

namespace gradcheck_detail {

PerTensor Problem::evaluate(std::size_t i, const ComplexValues* value) const {
    tensor_list args = base;
    if (value) args[diff_inputs[i]] = write_values(*value, input(i).sizes(), input(i).dtype());
    tensor_list results;
    {
        NoGradGuard guard;
        results = fn(args);
    }
    PerTensor values;
    for (std::size_t position : diff_outputs) values.push_back(read_values(results.at(position)));
    return values;
}

tensor_list Problem::leaves() const {
    tensor_list leaves = base;
    for (std::size_t position : diff_inputs) leaves[position] = base[position].clone().detach().requires_grad_(true);
    return leaves;
}

void check_deterministic(const Problem& problem) {
    const PerTensor again = problem.evaluate(0, nullptr);
    const double tolerance = problem.options.nondet_tol;
    for (std::size_t o = 0; o < again.size(); ++o)
        for (std::size_t r = 0; r < again[o].size(); ++r) {
            const double difference = std::abs(again[o][r] - problem.output_values[o][r]);
            if (difference > tolerance)
                fail("gradcheck: the function is nondeterministic: evaluating it twice at the same inputs gave "
                     "output " + std::to_string(problem.diff_outputs[o]) + " values that differ by " +
                     format_value(difference, false) + " at element " + std::to_string(r) + " (nondet_tol = " +
                     format_value(tolerance, false) +
                     "); finite differences need a deterministic function. Raise nondet_tol if this is expected.");
        }
}

namespace {

// The inputs that take part: those that require grad, which must be of a floating or
// complex dtype (single precision only earns a warning).
void add_diff_inputs(Problem& problem, const tensor_list& inputs) {
    for (std::size_t position = 0; position < inputs.size(); ++position) {
        const Tensor& t = inputs[position];
        problem.base.push_back(t.defined() ? t.detach() : t);
        if (!t.defined() || !t.requires_grad()) continue;
        if (!is_differentiable_type(t.dtype()))
            fail("gradcheck: input " + std::to_string(position) + " requires grad but has dtype " +
                 std::string(to_string(t.dtype())) + "; only floating point and complex inputs can be checked.");
        if (t.dtype() == kFloat32 || t.dtype() == kComplex64)
            warn("gradcheck: input " + std::to_string(position) + " has dtype " + std::string(to_string(t.dtype())) +
                 ": single precision is too low for reliable finite differences (eps = " +
                 std::to_string(problem.options.eps) + "); use float64 / complex128 inputs.");
        problem.diff_inputs.push_back(position);
    }
    if (problem.diff_inputs.empty())
        fail("gradcheck: expects at least one input tensor to require gradient, but none of the " +
             std::to_string(inputs.size()) + " inputs does; call requires_grad_() on the inputs to check.");
}

Problem make_problem(const GradcheckFunction& fn, const tensor_list& inputs, const GradcheckOptions& options) {
    Problem problem{.fn = fn, .options = options};
    add_diff_inputs(problem, inputs);
    tensor_list results;
    {
        NoGradGuard guard;
        results = fn(problem.base);
    }
    for (std::size_t position = 0; position < results.size(); ++position) {
        const Tensor& out = results[position];
        if (!out.defined() || !is_differentiable_type(out.dtype())) continue;
        problem.diff_outputs.push_back(position);
        problem.output_shapes.push_back(out.sizes());
        problem.output_dtypes.push_back(out.dtype());
        problem.output_values.push_back(read_values(out));
    }
    // Nothing to compare would be a silent pass.
    if (problem.diff_outputs.empty())
        fail("gradc: gradcheck: the function returned " + std::to_string(results.size()) +
             " outputs, none of them a defined floating point or complex tensor; expected at least one to check.");
    return problem;
}

// A step of 0 or NaN makes every numerical derivative NaN, a negative one passes like a
// positive one, and a NaN tolerance fails every comparison: each would be reported as a
// Jacobian mismatch (or not at all) instead of as the option that is wrong.
void check_options(const GradcheckOptions& options) {
    const auto require = [](bool ok, const char* name, double value, const char* expected) {
        if (!ok)
            throw GradcheckError(std::string("gradc: gradcheck: options.") + name + " is " + format_value(value, false) +
                                 "; expected " + expected);
    };
    require(std::isfinite(options.eps) && options.eps > 0, "eps", options.eps, "a finite step > 0");
    require(options.atol >= 0, "atol", options.atol, "a tolerance >= 0");
    require(options.rtol >= 0, "rtol", options.rtol, "a tolerance >= 0");
    require(options.nondet_tol >= 0, "nondet_tol", options.nondet_tol, "a tolerance >= 0");
}

bool run_checked(const GradcheckOptions& options, const auto& body) {
    if (!options.check_backward_ad && !options.check_forward_ad)
        throw GradcheckError("gradcheck: expected at least one of check_forward_ad or check_backward_ad to be true.");
    check_options(options);
    try {
        body();
    } catch (const GradcheckError&) {
        if (options.raise_exception) throw;
        return false;
    }
    return true;
}

// gradgradcheck's v: the given grad_outputs as new leaves, or random ones of the
// differentiable outputs' shapes and dtypes.
tensor_list grad_output_leaves(const tensor_list& outputs, const std::vector<std::size_t>& diff_outputs,
                               const tensor_list& grad_outputs, std::uint64_t seed) {
    tensor_list v;
    if (!grad_outputs.empty()) {
        if (grad_outputs.size() != diff_outputs.size())
            throw GradcheckError("gradgradcheck: got " + std::to_string(grad_outputs.size()) +
                                 " grad_outputs, expected one per differentiable output (" +
                                 std::to_string(diff_outputs.size()) + ")");
        for (std::size_t k = 0; k < grad_outputs.size(); ++k) {
            const Tensor& g = grad_outputs[k];
            const Tensor& out = outputs[diff_outputs[k]];
            const auto describe = [](const Tensor& t) {
                return std::string(to_string(t.dtype())) + " " + shape_string(t.sizes());
            };
            if (!g.defined() || g.sizes() != out.sizes() || g.is_complex() != out.is_complex())
                throw GradcheckError("gradc: gradgradcheck: grad_outputs[" + std::to_string(k) + "] is " +
                                     (g.defined() ? describe(g) : std::string("an undefined Tensor")) +
                                     "; expected a tensor of the shape of output " + std::to_string(diff_outputs[k]) +
                                     " (" + describe(out) + "), real or complex as that output is");
            v.push_back(g.detach().clone().requires_grad_(true));
        }
        return v;
    }
    Rng rng(seed + 0x9e3779b97f4a7c15ULL);
    for (std::size_t position : diff_outputs) {
        const Tensor& out = outputs[position];
        ComplexValues values(static_cast<std::size_t>(out.numel()));
        for (auto& e : values) e = out.is_complex() ? Complex(rng.normal(), rng.normal()) : Complex(rng.normal(), 0);
        v.push_back(write_values(values, out.sizes(), out.dtype()).requires_grad_(true));
    }
    return v;
}

// F(x, v) = vᵀ J_f(x): the gradients of Σ v·f with respect to the inputs that require
// grad; its arguments are f's inputs followed by one v per differentiable output.
GradcheckFunction vector_jacobian_product_of(const GradcheckFunction& fn, const std::vector<std::size_t>& diff_inputs,
                                             const std::vector<std::size_t>& diff_outputs, std::size_t num_inputs) {
    return [fn, diff_inputs, diff_outputs, num_inputs](const tensor_list& all) -> tensor_list {
        AutoGradMode enable(true);
        tensor_list x(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(num_inputs));
        for (std::size_t position : diff_inputs) {
            if (x[position].requires_grad()) continue;
            // Under check_forward_ad the inputs are dual tensors: keep the tangent on the
            // new leaf, so that forward mode runs over the reverse pass below.
            auto [primal, tangent] = forward_ad::unpack_dual(x[position]);
            Tensor leaf = primal.detach().requires_grad_(true);
            x[position] = tangent.defined() ? forward_ad::make_dual(leaf, tangent) : leaf;
        }
        const tensor_list y = fn(x);
        tensor_list ys, vs, xs;
        for (std::size_t k = 0; k < diff_outputs.size(); ++k) {
            if (!y.at(diff_outputs[k]).requires_grad()) continue;
            ys.push_back(y[diff_outputs[k]]);
            vs.push_back(all.at(num_inputs + k));
        }
        for (std::size_t position : diff_inputs) xs.push_back(x[position]);
        tensor_list grads = ys.empty() ? tensor_list(xs.size()) : grad(ys, xs, vs, true, true, true);
        for (std::size_t k = 0; k < grads.size(); ++k)
            if (!grads[k].defined()) grads[k] = zeros_like(xs[k]);
        return grads;
    };
}

}  // namespace
}  // namespace gradcheck_detail

bool gradcheck(const GradcheckFunction& fn, const tensor_list& inputs, const GradcheckOptions& options) {
    using namespace gradcheck_detail;
    return run_checked(options, [&] {
        const Problem problem = make_problem(fn, inputs, options);
        check_deterministic(problem);
        if (options.check_backward_ad) {
            if (options.fast_mode)
                fast_mode(problem);
            else
                slow_mode(problem);
            if (options.check_undefined_grad) check_undefined_grad(problem);
        }
        if (options.check_forward_ad) {
            if (options.fast_mode)
                fast_forward_mode(problem);
            else
                slow_forward_mode(problem);
            if (options.check_undefined_grad) check_undefined_forward(problem);
        }
    });
}

bool gradgradcheck(const GradcheckFunction& fn, const tensor_list& inputs, const tensor_list& grad_outputs,
                   const GradcheckOptions& options) {
    using namespace gradcheck_detail;
    std::vector<std::size_t> diff_inputs;
    for (std::size_t position = 0; position < inputs.size(); ++position)
        if (inputs[position].defined() && inputs[position].requires_grad()) diff_inputs.push_back(position);
    tensor_list outputs;
    {
        NoGradGuard guard;
        outputs = fn(inputs);
    }
    std::vector<std::size_t> diff_outputs;
    for (std::size_t position = 0; position < outputs.size(); ++position)
        if (outputs[position].defined() && is_differentiable_type(outputs[position].dtype()))
            diff_outputs.push_back(position);
    const tensor_list v = grad_output_leaves(outputs, diff_outputs, grad_outputs, options.seed);
    tensor_list all = inputs;
    all.insert(all.end(), v.begin(), v.end());
    return gradcheck(vector_jacobian_product_of(fn, diff_inputs, diff_outputs, inputs.size()), all, options);
}

}  // namespace gradc::autograd
