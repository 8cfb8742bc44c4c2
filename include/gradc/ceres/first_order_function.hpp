#pragma once
/// \file
/// A map-reduce kernel as a `ceres::FirstOrderFunction`, the objective of a
/// `ceres::GradientProblem`:
///
///     auto [x, mu, sigma] = gradc::variables<3>();
///     auto nll = gradc::compile(0.5 * z * z + log(sigma), gradc::wrt(mu, sigma));   // one point's term
///     ceres::GradientProblem problem(gradc::ceres::make_first_order_function(nll, data).release());
///
/// The cost at θ is Σᵢ f(θ, xᵢ), the kernel's one output summed over the data points, and
/// its gradient is the θ-gradient of the sum, both from one `k.map_reduce(data, θ)` call
/// (vectorised over points, on the threads of gradc::get_num_threads() or of the option
/// given). Ceres minimises: for a likelihood, the kernel is the negative log-likelihood
/// of one point. θ holds the kernel's wrt variables in wrt order (NumParameters() of
/// them); `data` holds one array per other variable, in variable order, one entry per
/// point, as for `k.map_reduce`. The data are copied, so the function owns all it reads.
/// Ownership follows Ceres: the `ceres::GradientProblem` deletes the function, hence
/// `.release()` of the `std::unique_ptr` `make_first_order_function` returns. Evaluate
/// always returns true; a non-finite cost is for the solver to reject, as with any
/// FirstOrderFunction.

#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include <ceres/first_order_function.h>

#include <gradc/ceres/scalar_kernel.hpp>
#include <gradc/simd/arguments.hpp>
#include <gradc/simd/call_options.hpp>

namespace gradc::ceres {

/// A map-reduce kernel as a `ceres::FirstOrderFunction` for `ceres::GradientProblem`: the
/// cost Σᵢ f(θ, xᵢ) over the data it holds, and its θ-gradient, from one `k.map_reduce`.
template <class Kernel, simd::call_option Option = simd::default_arch>
class first_order_function final : public ::ceres::FirstOrderFunction {
    static constexpr std::size_t parameter_count = Kernel::wrt_count;
    static constexpr std::size_t data_count = Kernel::arity - Kernel::wrt_count;
    static_assert(detail::is_scalar_kernel<Kernel>,
                  "gradc::ceres::first_order_function: the kernel must come from gradc::compile over "
                  "gradc::variables<N>() (scalar variables)");
    static_assert(Kernel::output_count == 1,
                  "gradc::ceres::first_order_function: the kernel must have one output (one point's term of "
                  "the cost)");
    static_assert(data_count >= 1,
                  "gradc::ceres::first_order_function: the kernel needs per-point data: compile it with "
                  "gradc::wrt(parameters...) so that the variables not listed are the data");

public:
    /// `data`: one array per variable not in wrt(...), in variable order, all of one
    /// length (the number of points); a wrong count or length throws
    /// gradc::Error naming it, as `k.map_reduce` does.
    template <simd::span_list Data>
    first_order_function(const Kernel& k, const Data& data, Option option = {}) : kernel_(k), option_(option) {
        using T = simd::span_list_value_t<Data>;
        const std::size_t n = simd::detail::point_count(data);
        const auto p = simd::detail::checked_pointers<T, data_count>(
            "ceres::first_order_function", "data", "one per variable not in wrt(...)", data, n, "data[0]");
        for (std::size_t d = 0; d < data_count; ++d) {
            data_[d].assign(p[d], p[d] + n);
            spans_[d] = data_[d];
        }
    }

    // The spans point into the function's own copies of the data.
    first_order_function(const first_order_function&) = delete;
    first_order_function& operator=(const first_order_function&) = delete;

    /// Σᵢ f(θ, xᵢ) at θ = `parameters`, and its gradient unless `gradient` is null.
    bool Evaluate(const double* parameters, double* cost, double* gradient) const override {
        const auto r = kernel_.map_reduce(spans_, std::span<const double, parameter_count>(parameters, parameter_count),
                                          option_);
        *cost = r.value;
        if (gradient != nullptr)
            for (std::size_t j = 0; j < parameter_count; ++j) gradient[j] = r.gradient[j];
        return true;
    }

    int NumParameters() const override { return static_cast<int>(parameter_count); }  ///< The length of θ.

    const Kernel& kernel() const { return kernel_; }  ///< The compiled kernel it sums.

private:
    Kernel kernel_;
    Option option_;
    std::array<std::vector<double>, data_count> data_;
    std::array<std::span<const double>, data_count> spans_;
};

/// `new first_order_function<Kernel, Option>(k, data, option)`, owned until it is
/// released to a `ceres::GradientProblem`.
template <class Kernel, simd::span_list Data, simd::call_option Option = simd::default_arch>
auto make_first_order_function(const Kernel& k, const Data& data, Option option = {}) {
    return std::make_unique<first_order_function<Kernel, Option>>(k, data, option);
}

}  // namespace gradc::ceres
