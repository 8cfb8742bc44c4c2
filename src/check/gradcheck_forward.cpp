// Slow mode with forward mode (check_forward_ad): the analytical Jacobian column by column
// from one JVP per input element, against the same numerical Jacobian as reverse mode.
//
// The convention of PyTorch's "Gradcheck mechanics" notes for forward mode: for a real
// direction u the tangent is (2·CW)·u, the ordinary derivative along u. A complex input
// z = a + ib is checked along real and along imaginary directions (PyTorch splits it into
// the real functions of a and of b): the tangents ∂y/∂a·u and ∂y/∂b·u fill the same
// entries ∂y/∂a + i·∂y/∂b as the numerical Jacobian.
#include <string>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/forward_ad.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "gradcheck_internal.hpp"

namespace gradc::autograd::gradcheck_detail {

namespace {

void check_tangent(const Problem& problem, std::size_t o, const Tensor& tangent) {
    if (!tangent.defined()) return;
    const std::string output = "gradcheck: forward mode gave output " + std::to_string(problem.diff_outputs[o]);
    if (tangent.sizes() != problem.output_shapes[o])
        fail(output + " a tangent of shape " + shape_string(tangent.sizes()) + ", but the output has shape " +
             shape_string(problem.output_shapes[o]));
    if (problem.options.check_grad_dtypes && tangent.is_complex() != is_complex(problem.output_dtypes[o]))
        fail(output + " a tangent of dtype " + std::string(to_string(tangent.dtype())) + " for an output of dtype " +
             std::string(to_string(problem.output_dtypes[o])) + " (check_grad_dtypes=true).");
}

}  // namespace

/// Every input that requires grad other than i gets a zero tangent, or its tangent from
/// `others` when that is not empty; input `without_tangent` gets none at all. Outputs
/// without a tangent count as zero tangents.
PerTensor jvp(const Problem& problem, std::size_t i, const ComplexValues& direction, const PerTensor& others,
              std::size_t without_tangent) {
    forward_ad::dual_level level;
    tensor_list args = problem.base;
    for (std::size_t m = 0; m < problem.diff_inputs.size(); ++m) {
        if (m == without_tangent) continue;
        const Tensor& x = problem.input(m);
        const ComplexValues* values = m == i ? &direction : (others.empty() ? nullptr : &others[m]);
        args[problem.diff_inputs[m]] =
            forward_ad::make_dual(x, values ? write_values(*values, x.sizes(), x.dtype()) : zeros_like(x));
    }
    tensor_list results;
    {
        NoGradGuard guard;  // forward mode does not need the backward graph
        results = problem.fn(args);
    }
    PerTensor tangents;
    for (std::size_t o = 0; o < problem.diff_outputs.size(); ++o) {
        const Tensor tangent = forward_ad::unpack_dual(results.at(problem.diff_outputs[o])).tangent;
        check_tangent(problem, o, tangent);
        tangents.push_back(tangent.defined() ? read_values(tangent) : ComplexValues(problem.output_numel(o), Complex{}));
    }
    return tangents;
}

Jacobians forward_jacobians(const Problem& problem) {
    return by_columns(problem, [](const Problem& p, std::size_t i, const ComplexValues& d) { return jvp(p, i, d); });
}

void slow_forward_mode(const Problem& problem) {
    const std::string report =
        jacobian_mismatch(problem, forward_jacobians(problem), numerical_jacobians(problem), AnalyticalBy::forward_mode);
    if (!report.empty()) fail("gradcheck: " + report);
}

/// A JVP must treat an input without tangent like one with a zero tangent.
void check_undefined_forward(const Problem& problem) {
    Rng rng(problem.options.seed);
    const UnitDirections u = unit_directions(rng, problem);
    PerTensor tangents(problem.diff_inputs.size());
    for (std::size_t m = 0; m < problem.diff_inputs.size(); ++m)
        for (std::size_t k = 0; k < u.real[m].size(); ++k)
            tangents[m].push_back(Complex(u.real[m][k], u.imag[m].empty() ? 0.0 : u.imag[m][k]));
    for (std::size_t i = 0; i < problem.diff_inputs.size(); ++i) {
        const ComplexValues zero(problem.input_numel(i), Complex{});
        const PerTensor with_zero = jvp(problem, i, zero, tangents);
        const PerTensor without = jvp(problem, i, zero, tangents, i);
        for (std::size_t o = 0; o < problem.diff_outputs.size(); ++o)
            for (std::size_t r = 0; r < problem.output_numel(o); ++r)
                if (!within_tolerance(with_zero[o][r], without[o][r], problem.options))
                    fail("gradcheck: forward mode does not handle undefined (zero) input tangents: output " +
                         std::to_string(problem.diff_outputs[o]) + " gets the tangent " +
                         format_value(with_zero[o][r], true) + " at element " + std::to_string(r) + " when input " +
                         std::to_string(problem.diff_inputs[i]) + " has a zero tangent, but " +
                         format_value(without[o][r], true) +
                         " when it has none; a JVP must treat a missing tangent as zeros. check_undefined_grad=false "
                         "skips this check.");
    }
}

}  // namespace gradc::autograd::gradcheck_detail
