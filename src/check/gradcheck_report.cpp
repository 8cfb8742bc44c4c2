// What a failed gradcheck says: the first entry that differs, with both Jacobians printed
// one row per output element and one column per input element.
#include <sstream>
#include <string>

#include <gradc/autograd/print.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "gradcheck_internal.hpp"

namespace gradc::autograd::gradcheck_detail {

bool within_tolerance(Complex analytical, Complex numerical, const GradcheckOptions& options) {
    return std::abs(analytical - numerical) <= options.atol + options.rtol * std::abs(numerical);
}

std::string format_value(Complex v, bool complex) {
    std::ostringstream s;
    s.precision(10);
    if (complex)
        s << v.real() << (v.imag() < 0 ? " - " : " + ") << std::abs(v.imag()) << "i";
    else
        s << v.real();
    return s.str();
}

std::string part_prefix(const Problem& problem, std::size_t o, std::size_t part) {
    if (!problem.output_complex(o)) return "";
    return part == 0 ? "While considering the real part of complex outputs only, "
                     : "While considering the imaginary part of complex outputs only, ";
}

void fail(const std::string& message) { throw GradcheckError(message); }

namespace {

std::string matrix(const Problem& problem, std::size_t o, std::size_t i, const ComplexValues& entries) {
    const Shape sizes{static_cast<std::int64_t>(problem.output_numel(o)), static_cast<std::int64_t>(problem.input_numel(i))};
    return to_string(write_values(entries, sizes, problem.input_complex(i) ? kComplex128 : kFloat64));
}

std::string entry_mismatch(const Problem& problem, std::size_t o, std::size_t part, std::size_t i, std::size_t e,
                           const ComplexValues& analytical, const ComplexValues& numerical, AnalyticalBy by) {
    const bool forward = by == AnalyticalBy::forward_mode;
    const bool complex = problem.input_complex(i);
    const std::size_t cols = problem.input_numel(i);
    std::ostringstream s;
    s << part_prefix(problem, o, part)
      << (forward ? "Jacobian computed with forward mode mismatch for output " : "Jacobian mismatch for output ")
      << problem.diff_outputs[o] << " with respect to input " << problem.diff_inputs[i] << ",\n"
      << "first at output element " << e / cols << ", input element " << e % cols << ": analytical "
      << format_value(analytical[e], complex) << ", numerical " << format_value(numerical[e], complex)
      << " (|a - n| <= atol + rtol*|n| with atol=" << problem.options.atol << ", rtol=" << problem.options.rtol
      << ")\n"
      << "numerical:\n" << matrix(problem, o, i, numerical)
      << (forward ? "\nanalytical (forward mode):\n" : "\nanalytical:\n") << matrix(problem, o, i, analytical) << "\n";
    return s.str();
}

}  // namespace

std::string jacobian_mismatch(const Problem& problem, const Jacobians& analytical, const Jacobians& numerical,
                              AnalyticalBy by) {
    for (std::size_t o = 0; o < problem.diff_outputs.size(); ++o)
        for (std::size_t part = 0; part < problem.num_parts(o); ++part)
            for (std::size_t i = 0; i < problem.diff_inputs.size(); ++i) {
                const ComplexValues& a = analytical[o][part][i];
                const ComplexValues& n = numerical[o][part][i];
                for (std::size_t e = 0; e < a.size(); ++e)
                    if (!within_tolerance(a[e], n[e], problem.options))
                        return entry_mismatch(problem, o, part, i, e, a, n, by);
            }
    return "";
}

void fail_fast_mode(const Problem& problem, const FastModeValues& values, AnalyticalBy by, const std::string& at_element,
                    const std::string& slow_report) {
    const bool forward = by == AnalyticalBy::forward_mode;
    const char* quantity = forward ? "J·u" : "vᵀJu";
    const bool complex = problem.input_complex(values.i);
    std::ostringstream s;
    s << (forward ? "gradcheck (fast mode, forward AD): " : "gradcheck (fast mode): ")
      << part_prefix(problem, values.o, values.part) << "mismatch of " << quantity << " for output "
      << problem.diff_outputs[values.o] << " with respect to input " << problem.diff_inputs[values.i] << at_element
      << " (seed " << problem.options.seed << "): " << (forward ? "forward mode " : "analytical ")
      << format_value(values.analytical, complex) << ", numerical " << format_value(values.numerical, complex)
      << ".\n";
    if (!slow_report.empty())
        s << "Slow mode, rerun to locate it:\n" << slow_report;
    else
        s << "Slow mode, rerun to locate it, finds every entry within tolerance: the difference is below the "
             "tolerance per entry but adds up in " << quantity << "; consider raising atol/rtol.\n";
    fail(s.str());
}

}  // namespace gradc::autograd::gradcheck_detail
