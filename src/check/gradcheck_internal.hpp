#pragma once
// Shared by the source files of the dynamic mode's gradcheck (not installed); PyTorch's
// "Gradcheck mechanics" notes are the specification.
//
// Everything is computed on copies of the values as std::complex<double> vectors, so one
// code path serves float32/float64/complex64/complex128. The Jacobian of output o (part:
// real, or imaginary for complex outputs) with respect to input i is an M×N matrix with
// one row per output element and one column per input element; its entries are complex
// (2·CW) for complex inputs and real otherwise.
//
//   gradcheck.cpp          the entry points, the problem (inputs, outputs, evaluation)
//   gradcheck_complex.cpp  values as complex vectors; the 2·CW convention for entries
//   gradcheck_slow.cpp     slow mode: whole Jacobians by finite differences and reverse mode
//   gradcheck_forward.cpp  slow mode with forward mode (JVPs) instead of reverse mode
//   gradcheck_fast.cpp     fast mode: vᵀJu and J·u for random v, unit u
//   gradcheck_report.cpp   what a failed check says

#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gradc/autograd/tensor.hpp>
#include <gradc/check/gradcheck.hpp>

namespace gradc::autograd::gradcheck_detail {

using Complex = std::complex<double>;
using ComplexValues = std::vector<Complex>;
/// One vector per differentiable output (or per input that requires grad).
using PerTensor = std::vector<ComplexValues>;

// ---- values and the complex convention (gradcheck_complex.cpp) ----------------------

/// The elements of `t`, row-major, as complex numbers.
ComplexValues read_values(const Tensor& t);
/// A new tensor of the given shape and dtype holding `values` (the real parts for a real dtype).
Tensor write_values(const ComplexValues& values, const Shape& sizes, ScalarType dtype);
/// The real (part 0) or imaginary (part 1) part of `v`.
double part_of(Complex v, std::size_t part);

/// Uniform and normal numbers from a 64-bit Mersenne twister through <random>'s
/// distributions: a seed gives the same numbers for a given standard library.
class Rng {
public:
    explicit Rng(std::uint64_t seed) : engine_(seed) {}
    double uniform() { return std::uniform_real_distribution<double>(0.0, 1.0)(engine_); }
    double normal() { return normal_(engine_); }
    std::vector<double> normals(std::size_t n) {
        std::vector<double> v(n);
        for (auto& x : v) x = normal();
        return v;
    }
    std::vector<double> unit(std::size_t n) {
        std::vector<double> v = normals(n);
        double norm = 0;
        for (double x : v) norm += x * x;
        norm = std::sqrt(norm);
        if (norm > 0)
            for (auto& x : v) x /= norm;
        return v;
    }

private:
    std::mt19937_64 engine_;
    std::normal_distribution<double> normal_{0.0, 1.0};
};

// ---- the problem (gradcheck.cpp) --------------------------------------------------

struct Problem {
    const GradcheckFunction& fn;
    const GradcheckOptions& options;
    tensor_list base{};                        // detached values of all inputs
    std::vector<std::size_t> diff_inputs{};    // positions of the inputs that require grad
    std::vector<std::size_t> diff_outputs{};   // positions of the differentiable outputs
    std::vector<Shape> output_shapes{};
    std::vector<ScalarType> output_dtypes{};
    PerTensor output_values{};                 // f(base)

    const Tensor& input(std::size_t i) const { return base[diff_inputs[i]]; }
    bool input_complex(std::size_t i) const { return input(i).is_complex(); }
    std::size_t input_numel(std::size_t i) const { return static_cast<std::size_t>(input(i).numel()); }
    bool output_complex(std::size_t o) const { return is_complex(output_dtypes[o]); }
    std::size_t output_numel(std::size_t o) const { return output_values[o].size(); }
    /// Real and imaginary part for a complex output, the real part alone otherwise.
    std::size_t num_parts(std::size_t o) const { return output_complex(o) ? 2 : 1; }

    /// f at the base point, with input `i` replaced by `value` when given: the
    /// differentiable outputs.
    PerTensor evaluate(std::size_t i, const ComplexValues* value) const;
    /// Leaves that require grad for the inputs that require grad; the other inputs as given.
    tensor_list leaves() const;
};

/// Fails unless evaluating the function twice gives the same outputs (within nondet_tol).
void check_deterministic(const Problem& problem);

// ---- Jacobians ----------------------------------------------------------------------

/// jacobians[o][part][i]: the M×N matrix of output o's part with respect to input i, row-major.
using Jacobians = std::vector<std::vector<PerTensor>>;

Jacobians zero_jacobians(const Problem& problem);

/// One Jacobian entry from an output's change along the real direction and, for complex
/// inputs, along the imaginary one: 2·CW = ∂y/∂a + i·∂y/∂b (the real part alone for real
/// inputs).
Complex column_entry(const Problem& problem, std::size_t i, std::size_t part, Complex along_real, Complex along_imag);

/// The Jacobians column by column: `along(problem, i, d)` gives the outputs' change along
/// the direction d of input i (central differences, or a forward-mode JVP); each input
/// element is moved along 1 and, for complex inputs, along i.
template <class Along>
Jacobians by_columns(const Problem& problem, Along along) {
    Jacobians jacobians = zero_jacobians(problem);
    for (std::size_t i = 0; i < problem.diff_inputs.size(); ++i) {
        const std::size_t n = problem.input_numel(i);
        for (std::size_t k = 0; k < n; ++k) {
            ComplexValues direction(n, Complex{});
            direction[k] = 1.0;
            const PerTensor along_real = along(problem, i, direction);
            PerTensor along_imag;
            if (problem.input_complex(i)) {
                direction[k] = Complex(0, 1);
                along_imag = along(problem, i, direction);
            }
            for (std::size_t o = 0; o < problem.diff_outputs.size(); ++o)
                for (std::size_t part = 0; part < problem.num_parts(o); ++part)
                    for (std::size_t r = 0; r < problem.output_numel(o); ++r)
                        jacobians[o][part][i][r * n + k] = column_entry(
                            problem, i, part, along_real[o][r], along_imag.empty() ? Complex{} : along_imag[o][r]);
        }
    }
    return jacobians;
}

// ---- reverse mode and finite differences (gradcheck_slow.cpp) -----------------------

/// (f(x + eps·d) - f(x - eps·d)) / 2eps for the direction d of input i, per output.
PerTensor central_difference(const Problem& problem, std::size_t i, const ComplexValues& direction);
Jacobians numerical_jacobians(const Problem& problem);
/// Σ over output o of grad_output·∂/∂inputs, one vector per input that requires grad.
PerTensor vjp(const Problem& problem, const tensor_list& leaves, const tensor_list& results, std::size_t o,
              const ComplexValues& grad_output);
/// The Jacobians row by row, one VJP per output element and part.
Jacobians analytical_jacobians(const Problem& problem, const tensor_list& leaves, const tensor_list& results);
void slow_mode(const Problem& problem);
void check_undefined_grad(const Problem& problem);

// ---- forward mode (gradcheck_forward.cpp) -------------------------------------------

/// The tangents of the differentiable outputs when input i has the tangent `direction`;
/// see the definition for the other inputs' tangents.
PerTensor jvp(const Problem& problem, std::size_t i, const ComplexValues& direction, const PerTensor& others = {},
              std::size_t without_tangent = static_cast<std::size_t>(-1));
/// The Jacobians column by column, one JVP per input element (two for complex inputs).
Jacobians forward_jacobians(const Problem& problem);
void slow_forward_mode(const Problem& problem);
void check_undefined_forward(const Problem& problem);

// ---- fast mode (gradcheck_fast.cpp) ---------------------------------------------------

/// Unit directions per input that requires grad: along the real axis and, for complex
/// inputs, along the imaginary one.
struct UnitDirections {
    std::vector<std::vector<double>> real, imag;
};
UnitDirections unit_directions(Rng& rng, const Problem& problem);
void fast_mode(const Problem& problem);
void fast_forward_mode(const Problem& problem);

// ---- reports (gradcheck_report.cpp) ---------------------------------------------------

/// |analytical - numerical| <= atol + rtol·|numerical|.
bool within_tolerance(Complex analytical, Complex numerical, const GradcheckOptions& options);
std::string format_value(Complex v, bool complex);
/// "While considering the real part of complex outputs only, " and the like.
std::string part_prefix(const Problem& problem, std::size_t o, std::size_t part);
[[noreturn]] void fail(const std::string& message);

enum class AnalyticalBy { reverse_mode, forward_mode };
/// The first (output, part, input) whose matrices differ: its report, naming the first
/// entry and printing both matrices; "" when all agree.
std::string jacobian_mismatch(const Problem& problem, const Jacobians& analytical, const Jacobians& numerical,
                              AnalyticalBy by = AnalyticalBy::reverse_mode);

/// One comparison of fast mode: where, and the analytical and numerical values.
struct FastModeValues {
    std::size_t o, part, i;
    Complex analytical, numerical;
};
/// Fails with the fast-mode report: the two values, then slow mode's `slow_report` (rerun
/// to locate it) or, when slow mode finds nothing, the advice to raise the tolerances.
[[noreturn]] void fail_fast_mode(const Problem& problem, const FastModeValues& values, AnalyticalBy by,
                                 const std::string& at_element, const std::string& slow_report);

}  // namespace gradc::autograd::gradcheck_detail
