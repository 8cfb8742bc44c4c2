// Slow mode (PyTorch's "Gradcheck mechanics" notes): the numerical Jacobian column by
// column by central differences, the analytical one row by row by reverse mode (one-hot
// output gradients), compared entry by entry.
#include <string>

#include <gradc/autograd/engine.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "gradcheck_internal.hpp"

namespace gradc::autograd::gradcheck_detail {

PerTensor central_difference(const Problem& problem, std::size_t i, const ComplexValues& direction) {
    const double eps = problem.options.eps;
    const ComplexValues x = read_values(problem.input(i));
    ComplexValues plus = x, minus = x;
    for (std::size_t k = 0; k < x.size(); ++k) {
        plus[k] += eps * direction[k];
        minus[k] -= eps * direction[k];
    }
    PerTensor difference = problem.evaluate(i, &plus);
    const PerTensor f_minus = problem.evaluate(i, &minus);
    for (std::size_t o = 0; o < difference.size(); ++o)
        for (std::size_t r = 0; r < difference[o].size(); ++r)
            difference[o][r] = (difference[o][r] - f_minus[o][r]) / (2 * eps);
    return difference;
}

Jacobians numerical_jacobians(const Problem& problem) {
    return by_columns(problem, [](const Problem& p, std::size_t i, const ComplexValues& d) {
        return central_difference(p, i, d);
    });
}

// The output gradient holds real weights for the real part of a complex output and i·weights
// for its imaginary part; a one-hot one gives one row of the Jacobian.
PerTensor vjp(const Problem& problem, const tensor_list& leaves, const tensor_list& results, std::size_t o,
              const ComplexValues& grad_output) {
    const std::size_t num_diff = problem.diff_inputs.size();
    PerTensor grads(num_diff);
    const Tensor& out = results.at(problem.diff_outputs[o]);
    for (std::size_t i = 0; i < num_diff; ++i) grads[i].assign(problem.input_numel(i), Complex{});
    if (!out.requires_grad() || num_diff == 0) return grads;
    tensor_list xs;
    for (std::size_t position : problem.diff_inputs) xs.push_back(leaves[position]);
    const Tensor weights = write_values(grad_output, problem.output_shapes[o], problem.output_dtypes[o]);
    const tensor_list computed = grad({out}, xs, {weights}, true, false, true);
    for (std::size_t i = 0; i < num_diff; ++i) {
        if (!computed[i].defined()) continue;
        const Tensor& input = problem.input(i);
        const std::string which = "gradcheck: the gradient for input " + std::to_string(problem.diff_inputs[i]);
        if (problem.options.check_grad_dtypes && computed[i].dtype() != input.dtype())
            fail(which + " has dtype " + std::string(to_string(computed[i].dtype())) + " but the input has dtype " +
                 std::string(to_string(input.dtype())) +
                 "; backward must return gradients of the input's dtype (check_grad_dtypes=true).");
        if (computed[i].sizes() != input.sizes())
            fail(which + " does not have the input's shape; backward must return one gradient per input element.");
        grads[i] = read_values(computed[i]);
        if (!problem.input_complex(i))
            for (auto& e : grads[i]) e = Complex(e.real(), 0.0);
    }
    return grads;
}

Jacobians analytical_jacobians(const Problem& problem, const tensor_list& leaves, const tensor_list& results) {
    Jacobians jacobians = zero_jacobians(problem);
    for (std::size_t o = 0; o < problem.diff_outputs.size(); ++o)
        for (std::size_t part = 0; part < problem.num_parts(o); ++part)
            for (std::size_t r = 0; r < problem.output_numel(o); ++r) {
                ComplexValues one_hot(problem.output_numel(o), Complex{});
                one_hot[r] = part == 0 ? Complex(1, 0) : Complex(0, 1);
                const PerTensor row = vjp(problem, leaves, results, o, one_hot);
                for (std::size_t i = 0; i < problem.diff_inputs.size(); ++i) {
                    const std::size_t n = problem.input_numel(i);
                    for (std::size_t k = 0; k < n; ++k) jacobians[o][part][i][r * n + k] = row[i][k];
                }
            }
    return jacobians;
}

namespace {

void check_reentrant(const Problem& problem, const Jacobians& first, const Jacobians& second) {
    const double tolerance = problem.options.nondet_tol;
    for (std::size_t o = 0; o < first.size(); ++o)
        for (std::size_t part = 0; part < first[o].size(); ++part)
            for (std::size_t i = 0; i < first[o][part].size(); ++i)
                for (std::size_t e = 0; e < first[o][part][i].size(); ++e) {
                    const double difference = std::abs(first[o][part][i][e] - second[o][part][i][e]);
                    if (difference > tolerance)
                        fail("gradcheck: backward is nondeterministic (not reentrant): running it twice with the "
                             "same inputs and output gradients gave different gradients for output " +
                             std::to_string(problem.diff_outputs[o]) + " with respect to input " +
                             std::to_string(problem.diff_inputs[i]) + " (difference " +
                             format_value(difference, false) + " > nondet_tol = " + format_value(tolerance, false) +
                             "). Raise nondet_tol if the nondeterminism is expected.");
                }
}

}  // namespace

void slow_mode(const Problem& problem) {
    const tensor_list leaves = problem.leaves();
    const tensor_list results = problem.fn(leaves);
    const Jacobians analytical = analytical_jacobians(problem, leaves, results);
    const Jacobians numerical = numerical_jacobians(problem);
    const std::string report = jacobian_mismatch(problem, analytical, numerical);
    if (!report.empty()) fail("gradcheck: " + report);
    check_reentrant(problem, analytical, analytical_jacobians(problem, leaves, results));
}

void check_undefined_grad(const Problem& problem) {
    const tensor_list leaves = problem.leaves();
    const tensor_list results = problem.fn(leaves);
    for (std::size_t o = 0; o < problem.diff_outputs.size(); ++o) {
        const PerTensor grads = vjp(problem, leaves, results, o, ComplexValues(problem.output_numel(o), Complex{}));
        for (std::size_t i = 0; i < grads.size(); ++i)
            for (const Complex& e : grads[i])
                if (e != Complex{})
                    fail("gradcheck: backward does not handle undefined (zero) output gradients: with a zero "
                         "gradient for output " + std::to_string(problem.diff_outputs[o]) + " the gradient for input " +
                         std::to_string(problem.diff_inputs[i]) + " is not zero (found " + format_value(e, true) +
                         "); backward must treat a missing output gradient as zeros. "
                         "check_undefined_grad=false skips this check.");
    }
}

}  // namespace gradc::autograd::gradcheck_detail
