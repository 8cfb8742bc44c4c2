// Values as complex vectors, and the convention for complex inputs of PyTorch's
// "Gradcheck mechanics" notes: a Jacobian entry for z = a + ib is 2·CW = ∂y/∂a + i·∂y/∂b.
#include <type_traits>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "gradcheck_internal.hpp"

namespace gradc::autograd::gradcheck_detail {

namespace {
template <class T>
constexpr bool is_complex_element = std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;
}  // namespace

ComplexValues read_values(const Tensor& t) {
    NoGradGuard guard;
    const Tensor contiguous = t.detach().contiguous();
    const auto n = static_cast<std::size_t>(contiguous.numel());
    ComplexValues out(n);
    dispatch(contiguous.dtype(), [&]<class T>(type_tag<T>) {
        const T* data = contiguous.data_ptr<T>();
        for (std::size_t k = 0; k < n; ++k) {
            if constexpr (is_complex_element<T>) {
                out[k] = Complex(data[k].real(), data[k].imag());
            } else {
                out[k] = Complex(static_cast<double>(data[k]), 0.0);
            }
        }
    });
    return out;
}

Tensor write_values(const ComplexValues& values, const Shape& sizes, ScalarType dtype) {
    Tensor t = empty(sizes, dtype);
    dispatch_floating(dtype, "gradcheck", [&]<class T>(type_tag<T>) {
        T* data = t.data_ptr<T>();
        for (std::size_t k = 0; k < values.size(); ++k) {
            if constexpr (is_complex_element<T>) {
                data[k] = T(values[k]);
            } else {
                data[k] = static_cast<T>(values[k].real());
            }
        }
    });
    return t;
}

double part_of(Complex v, std::size_t part) { return part == 0 ? v.real() : v.imag(); }

Complex column_entry(const Problem& problem, std::size_t i, std::size_t part, Complex along_real, Complex along_imag) {
    return Complex(part_of(along_real, part), problem.input_complex(i) ? part_of(along_imag, part) : 0.0);
}

Jacobians zero_jacobians(const Problem& problem) {
    Jacobians jacobians(problem.diff_outputs.size());
    for (std::size_t o = 0; o < problem.diff_outputs.size(); ++o) {
        jacobians[o].resize(problem.num_parts(o));
        for (auto& per_input : jacobians[o]) {
            per_input.resize(problem.diff_inputs.size());
            for (std::size_t i = 0; i < problem.diff_inputs.size(); ++i)
                per_input[i].assign(problem.output_numel(o) * problem.input_numel(i), Complex{});
        }
    }
    return jacobians;
}

}  // namespace gradc::autograd::gradcheck_detail
