// Fast mode (PyTorch's "Gradcheck mechanics" notes): instead of whole Jacobians, the
// scalar vᵀJu for random v and unit u (reverse mode), or J·u (forward mode), against
// central differences along u. On a mismatch slow mode reruns so the report names the
// output and input and prints both matrices.
#include <string>

#include "gradcheck_internal.hpp"

namespace gradc::autograd::gradcheck_detail {

// Drawn first from the seeded generator by both fast modes, so that their directions
// agree for one seed.
UnitDirections unit_directions(Rng& rng, const Problem& problem) {
    UnitDirections u;
    u.real.assign(problem.diff_inputs.size(), {});
    u.imag.assign(problem.diff_inputs.size(), {});
    for (std::size_t i = 0; i < problem.diff_inputs.size(); ++i) {
        u.real[i] = rng.unit(problem.input_numel(i));
        if (problem.input_complex(i)) u.imag[i] = rng.unit(problem.input_numel(i));
    }
    return u;
}

namespace {

/// The numerical J·u of every input along its real direction (and along i times its
/// imaginary one for complex inputs), one pair of evaluations each.
struct NumericalJu {
    std::vector<PerTensor> along_real, along_imag;
};

NumericalJu numerical_ju(const Problem& problem, const UnitDirections& u) {
    NumericalJu ju{std::vector<PerTensor>(problem.diff_inputs.size()), std::vector<PerTensor>(problem.diff_inputs.size())};
    for (std::size_t i = 0; i < problem.diff_inputs.size(); ++i) {
        ComplexValues direction(u.real[i].begin(), u.real[i].end());
        ju.along_real[i] = central_difference(problem, i, direction);
        if (problem.input_complex(i)) {
            for (std::size_t k = 0; k < direction.size(); ++k) direction[k] = Complex(0, u.imag[i][k]);
            ju.along_imag[i] = central_difference(problem, i, direction);
        }
    }
    return ju;
}

/// s = real(vᵀ2CW)·u_real + i·imag(vᵀ2CW)·u_imag, numerically vᵀ(∂y/∂a u_real) + i·vᵀ(∂y/∂b u_imag).
FastModeValues vjp_u_values(std::size_t o, std::size_t part, std::size_t i, const std::vector<double>& v,
                            const ComplexValues& vjp_of_input, const UnitDirections& u, const NumericalJu& ju) {
    Complex analytical{}, numerical{};
    const bool has_imag = !u.imag[i].empty();
    for (std::size_t k = 0; k < vjp_of_input.size(); ++k)
        analytical += Complex(vjp_of_input[k].real() * u.real[i][k], has_imag ? vjp_of_input[k].imag() * u.imag[i][k] : 0.0);
    for (std::size_t r = 0; r < v.size(); ++r)
        numerical += Complex(v[r] * part_of(ju.along_real[i][o][r], part),
                             ju.along_imag[i].empty() ? 0.0 : v[r] * part_of(ju.along_imag[i][o][r], part));
    return FastModeValues{o, part, i, analytical, numerical};
}

}  // namespace

void fast_mode(const Problem& problem) {
    Rng rng(problem.options.seed);
    // u: one unit vector per input (real, and imaginary for complex inputs); v: one per output part.
    const UnitDirections u = unit_directions(rng, problem);
    std::vector<std::vector<std::vector<double>>> v(problem.diff_outputs.size());
    for (std::size_t o = 0; o < problem.diff_outputs.size(); ++o)
        for (std::size_t part = 0; part < problem.num_parts(o); ++part) v[o].push_back(rng.normals(problem.output_numel(o)));
    const NumericalJu ju = numerical_ju(problem, u);
    const tensor_list leaves = problem.leaves();
    const tensor_list results = problem.fn(leaves);
    for (std::size_t o = 0; o < problem.diff_outputs.size(); ++o)
        for (std::size_t part = 0; part < problem.num_parts(o); ++part) {
            ComplexValues weights(problem.output_numel(o));
            for (std::size_t r = 0; r < weights.size(); ++r)
                weights[r] = part == 0 ? Complex(v[o][part][r], 0) : Complex(0, v[o][part][r]);
            const PerTensor vjps = vjp(problem, leaves, results, o, weights);
            for (std::size_t i = 0; i < problem.diff_inputs.size(); ++i) {
                const FastModeValues values = vjp_u_values(o, part, i, v[o][part], vjps[i], u, ju);
                if (within_tolerance(values.analytical, values.numerical, problem.options)) continue;
                const tensor_list rerun_leaves = problem.leaves();
                const tensor_list rerun_results = problem.fn(rerun_leaves);
                const std::string report = jacobian_mismatch(
                    problem, analytical_jacobians(problem, rerun_leaves, rerun_results), numerical_jacobians(problem));
                fail_fast_mode(problem, values, AnalyticalBy::reverse_mode, "", report);
            }
        }
}

/// J·u from one JVP per input (two for complex inputs), against the central difference
/// along u, element by element.
void fast_forward_mode(const Problem& problem) {
    Rng rng(problem.options.seed);
    const UnitDirections u = unit_directions(rng, problem);
    for (std::size_t i = 0; i < problem.diff_inputs.size(); ++i) {
        ComplexValues along_real(u.real[i].begin(), u.real[i].end()), along_imag;
        const PerTensor numerical_real = central_difference(problem, i, along_real);
        const PerTensor analytical_real = jvp(problem, i, along_real);
        PerTensor numerical_imag, analytical_imag;
        if (problem.input_complex(i)) {
            for (double x : u.imag[i]) along_imag.push_back(Complex(0, x));
            numerical_imag = central_difference(problem, i, along_imag);
            analytical_imag = jvp(problem, i, along_imag);
        }
        for (std::size_t o = 0; o < problem.diff_outputs.size(); ++o)
            for (std::size_t part = 0; part < problem.num_parts(o); ++part)
                for (std::size_t r = 0; r < problem.output_numel(o); ++r) {
                    const auto imag_of = [&](const PerTensor& t) { return t.empty() ? Complex{} : t[o][r]; };
                    const Complex analytical =
                        column_entry(problem, i, part, analytical_real[o][r], imag_of(analytical_imag));
                    const Complex numerical = column_entry(problem, i, part, numerical_real[o][r], imag_of(numerical_imag));
                    if (within_tolerance(analytical, numerical, problem.options)) continue;
                    const std::string report = jacobian_mismatch(problem, forward_jacobians(problem),
                                                                 numerical_jacobians(problem), AnalyticalBy::forward_mode);
                    fail_fast_mode(problem, FastModeValues{o, part, i, analytical, numerical}, AnalyticalBy::forward_mode,
                                   " at output element " + std::to_string(r), report);
                }
    }
}

}  // namespace gradc::autograd::gradcheck_detail
