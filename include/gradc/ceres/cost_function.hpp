#pragma once
/// \file
/// A compiled kernel as a `ceres::CostFunction`, sized at compile time like
/// `ceres::AutoDiffCostFunction`:
///
///     auto [m, c, x, y] = gradc::variables<4>();
///     auto k = gradc::compile(y - exp(m * x + c), gradc::wrt(m, c));
///     problem.AddResidualBlock(gradc::ceres::make_cost_function(k, xi, yi).release(), nullptr, mc);
///
/// (A kernel over array variables is taken by ceres/array_cost_function.hpp.)
/// The kernel's outputs are the residuals (M of them). Its wrt variables, in wrt order,
/// are the parameters, split into parameter blocks of the sizes given as template
/// arguments (`make_cost_function<1, 1>(k, ...)`: two blocks of one); without sizes, one
/// block holds them all. Its other variables are data: one number each, in variable order,
/// given when the cost function is made and kept in it (a residual block per data point).
/// The Jacobian comes from the kernel's Jacobian sweep (`k.jacobian`: one reverse sweep
/// carrying M weight vectors, or one forward sweep carrying the tangents, whichever
/// carries fewer), once for all blocks.
///
/// Ceres's contract, as `AutoDiffCostFunction` keeps it: `jacobians` may be null (then
/// only the residuals are computed) and any block of it may be null (then that block is
/// not written); a block is row-major, residuals × block size. Evaluate always returns
/// true: like `AutoDiffCostFunction`, it leaves the check for non-finite values to Ceres
/// (its residual blocks reject a non-finite residual or Jacobian entry).
/// Ownership follows Ceres: the `ceres::Problem` a cost function is added to deletes it,
/// hence `.release()` of the `std::unique_ptr` `make_cost_function` returns.

#include <array>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

#include <ceres/cost_function.h>
#include <ceres/sized_cost_function.h>

#include <gradc/ceres/array_cost_function.hpp>
#include <gradc/ceres/scalar_kernel.hpp>
#include <gradc/lower/data_variables.hpp>

namespace gradc::ceres {

namespace detail {

/// The parameter blocks of a cost function: block b holds wrt variables
/// [start[b], start[b] + size[b]), in wrt order.
template <int... Sizes>
struct block_layout {
    static constexpr std::size_t count = sizeof...(Sizes);
    static constexpr std::array<std::size_t, count> size{static_cast<std::size_t>(Sizes)...};
    static constexpr std::array<std::size_t, count> start = [] {
        std::array<std::size_t, count> s{};
        std::size_t at = 0;
        for (std::size_t b = 0; b < count; ++b) {
            s[b] = at;
            at += size[b];
        }
        return s;
    }();
};

/// Sizes checked before they reach `ceres::SizedCostFunction`, whose own checks would
/// speak of neither the kernel nor its wrt variables.
template <int Expected, int Got>
struct block_sizes_add_up {
    static constexpr bool value = Expected == Got;
};

}  // namespace detail

/// The kernel `Kernel` (what `gradc::compile` returns for scalar variables) as a cost
/// function with `Kernel::output_count` residuals and parameter blocks of sizes
/// `BlockSizes...`, which add up to the kernel's wrt variables.
template <class Kernel, int... BlockSizes>
class cost_function final
    : public ::ceres::SizedCostFunction<static_cast<int>(Kernel::output_count), BlockSizes...> {
    static_assert(detail::is_scalar_kernel<Kernel>,
                  "gradc::ceres::cost_function: the kernel must come from gradc::compile over "
                  "gradc::variables<N>() (scalar variables)");
    static_assert(sizeof...(BlockSizes) >= 1,
                  "gradc::ceres::cost_function: give at least one parameter block size (make_cost_function "
                  "without sizes makes one block of all wrt variables)");
    static_assert(((BlockSizes > 0) && ...),
                  "gradc::ceres::cost_function: every parameter block size must be at least 1");
    static_assert(detail::block_sizes_add_up<static_cast<int>(Kernel::wrt_count), (0 + ... + BlockSizes)>::value,
                  "gradc::ceres::cost_function: the parameter block sizes must add up to the kernel's number of "
                  "wrt variables (see block_sizes_add_up<expected, got> below)");

    using blocks = detail::block_layout<BlockSizes...>;
    static constexpr std::size_t arity = Kernel::arity;
    static constexpr std::size_t residual_count = Kernel::output_count;
    static constexpr std::size_t parameter_count = Kernel::wrt_count;
    static constexpr std::size_t data_count = arity - parameter_count;

    /// The kernel's variables that are data (not in wrt), in variable order.
    static constexpr const auto& data_variables = lower::data_variables<Kernel>;

public:
    /// The data: one number per variable not in wrt(...), in variable order.
    template <class... Data>
    explicit cost_function(const Kernel& k, const Data&... data) : kernel_(k) {
        static_assert(detail::data_argument_count<data_count, sizeof...(Data)>::value,
                      "gradc::ceres::cost_function: give one number per kernel variable not in wrt(...), in "
                      "variable order (see data_argument_count<expected, got> below)");
        static_assert((std::is_arithmetic_v<Data> && ...),
                      "gradc::ceres::cost_function: the data of a residual block are numbers");
        if constexpr (sizeof...(Data) == data_count) data_ = {static_cast<double>(data)...};
    }

    /// Ceres's contract: the residuals, and each Jacobian block that is asked for
    /// (row-major, residuals × block size; a null `jacobians` or block is skipped).
    bool Evaluate(double const* const* parameters, double* residuals, double** jacobians) const override {
        // Entry by entry, not as a copy of a prepared array: each value then goes straight
        // to the register the program reads it from (a copy of the whole array went
        // through memory, as wide stores read back by narrow loads).
        std::array<double, arity> x;
        for (std::size_t i = 0; i < data_count; ++i) x[data_variables[i]] = data_[i];
        for (std::size_t b = 0; b < blocks::count; ++b)
            for (std::size_t e = 0; e < blocks::size[b]; ++e)
                x[Kernel::wrt_variables[blocks::start[b] + e]] = parameters[b][e];
        if (jacobians == nullptr) {
            kernel_.value_at(x.data(), residuals);
            return true;
        }
        const auto r = kernel_.jacobian(x);
        for (std::size_t m = 0; m < residual_count; ++m) residuals[m] = r.value[m];
        for (std::size_t b = 0; b < blocks::count; ++b) {
            if (jacobians[b] == nullptr) continue;
            for (std::size_t m = 0; m < residual_count; ++m)
                for (std::size_t e = 0; e < blocks::size[b]; ++e)
                    jacobians[b][m * blocks::size[b] + e] = r.jacobian[m][blocks::start[b] + e];
        }
        return true;
    }

    const Kernel& kernel() const { return kernel_; }  ///< The compiled kernel it evaluates.

private:
    Kernel kernel_;
    /// The data, in variable order (the kernel's variables data_variables[i]).
    std::array<double, data_count> data_{};
};

/// `new cost_function<Kernel, BlockSizes...>(k, data...)` for a kernel over scalar
/// variables (without `BlockSizes`, one block of all wrt variables), or
/// `new array_cost_function<Kernel>(k, data...)` for a kernel over array variables (whose
/// blocks are its wrt variables); owned until it is released to a `ceres::Problem`.
template <int... BlockSizes, class Kernel, class... Data>
auto make_cost_function(const Kernel& k, const Data&... data) {
    static_assert(detail::is_scalar_kernel<Kernel> || detail::is_array_kernel<Kernel>,
                  "gradc::ceres::make_cost_function: the first argument must be a kernel from gradc::compile");
    if constexpr (detail::is_array_kernel<Kernel>) {
        static_assert(sizeof...(BlockSizes) == 0,
                      "gradc::ceres::make_cost_function: an array kernel's parameter blocks are its wrt variables, "
                      "of their shapes' sizes; give no block sizes");
        return std::make_unique<array_cost_function<Kernel>>(k, data...);
    } else if constexpr (sizeof...(BlockSizes) == 0) {
        return std::make_unique<cost_function<Kernel, static_cast<int>(Kernel::wrt_count)>>(k, data...);
    } else {
        return std::make_unique<cost_function<Kernel, BlockSizes...>>(k, data...);
    }
}

}  // namespace gradc::ceres
