#pragma once
/// \file
/// An array kernel (variables from `gradc::variables(shape...)`) as a `ceres::CostFunction`:
/// its variables are the natural parameter blocks.
///
///     auto [p, q, A, b] = gradc::variables(gradc::vec<3>, gradc::vec<2>, gradc::mat<2, 3>, gradc::vec<2>);
///     auto k = gradc::compile(tanh(A * p + b) + exp(q), gradc::wrt(p, q));
///     problem.AddResidualBlock(gradc::ceres::make_cost_function(k, A_i, b_i).release(), nullptr, p0, q0);
///
/// Parameter block j is wrt variable j, of its shape's size (a matrix row-major); the
/// residuals are the entries of the outputs, output after output. The other variables are
/// data, given when the cost function is made, one argument each in variable order (a
/// number for a scalar, a std::array, std::span, std::vector or fixed-size Eigen matrix
/// for an array, as for the kernel's calls), and copied into it.
///
/// The Jacobian is computed column by column: one tangent sweep per parameter entry of
/// each block asked for (a block passed as null costs nothing). Array programs have no
/// sweep that carries several directions at once yet, which the scalar kernels' cost
/// function uses (ceres/cost_function.hpp); the contract with Ceres is the same as there.

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include <ceres/cost_function.h>
#include <ceres/sized_cost_function.h>

#include <gradc/array_kernel.hpp>
#include <gradc/lower/array_arguments.hpp>
#include <gradc/lower/data_variables.hpp>

namespace gradc::ceres {

namespace detail {

template <class T>
inline constexpr bool is_array_kernel_type = false;
template <class Program, std::size_t LiteralCount>
inline constexpr bool is_array_kernel_type<gradc::array_kernel<Program, LiteralCount>> = true;
template <class T>
inline constexpr bool is_array_kernel = is_array_kernel_type<std::remove_cv_t<T>>;

/// Where each variable of an array kernel comes from, and where each output goes.
template <class Kernel>
struct array_layout {
    static constexpr std::size_t arity = Kernel::arity;
    static constexpr std::size_t outputs = Kernel::output_count;
    static constexpr std::size_t blocks = Kernel::wrt_count;
    static constexpr std::size_t data_count = arity - blocks;
    static constexpr std::size_t not_a_block = blocks;

    /// For variable v: its parameter block (wrt position), or not_a_block for data.
    static constexpr std::array<std::size_t, arity> block_of = [] {
        std::array<std::size_t, arity> b{};
        b.fill(not_a_block);
        for (std::size_t j = 0; j < blocks; ++j) b[Kernel::wrt_variables[j]] = j;
        return b;
    }();
    /// The data variables in variable order, and where each variable's entries start in
    /// the data buffer.
    static constexpr const auto& data_variables = lower::data_variables<Kernel>;
    static constexpr std::array<std::size_t, arity> data_offset = [] {
        std::array<std::size_t, arity> o{};
        std::size_t at = 0;
        for (std::size_t v = 0; v < arity; ++v) {
            o[v] = at;
            if (block_of[v] == not_a_block) at += Kernel::shapes[v].size();
        }
        return o;
    }();
    static constexpr std::size_t data_entries = [] {
        std::size_t n = 0;
        for (std::size_t v : data_variables) n += Kernel::shapes[v].size();
        return n;
    }();
    /// Where output m's entries start among the residuals.
    static constexpr std::array<std::size_t, outputs + 1> residual_offset = [] {
        std::array<std::size_t, outputs + 1> o{};
        for (std::size_t m = 0; m < outputs; ++m) o[m + 1] = o[m] + Kernel::output_shape(m).size();
        return o;
    }();
    static constexpr std::size_t residuals = residual_offset[outputs];
    static constexpr std::size_t largest_block = [] {
        std::size_t n = 1;
        for (std::size_t j = 0; j < blocks; ++j) n = n < Kernel::wrt_shape(j).size() ? Kernel::wrt_shape(j).size() : n;
        return n;
    }();

    template <std::size_t... j>
    static auto sized_base(std::index_sequence<j...>)
        -> ::ceres::SizedCostFunction<static_cast<int>(residuals), static_cast<int>(Kernel::wrt_shape(j).size())...>;
    using base = decltype(sized_base(std::make_index_sequence<blocks>{}));
};

template <std::size_t Expected, std::size_t Got>
struct data_argument_count {
    static constexpr bool value = Expected == Got;
};

}  // namespace detail

/// The array kernel `Kernel` as a cost function: blocks = its wrt variables, residuals =
/// the entries of its outputs.
template <class Kernel>
class array_cost_function final : public detail::array_layout<Kernel>::base {
    static_assert(detail::is_array_kernel<Kernel>,
                  "gradc::ceres::array_cost_function: the kernel must come from gradc::compile over "
                  "gradc::variables(shape...) (array variables)");
    using layout = detail::array_layout<Kernel>;
    static constexpr std::size_t arity = layout::arity;

public:
    /// The data: one argument per variable not in wrt(...), in variable order.
    template <class... Data>
    explicit array_cost_function(const Kernel& k, const Data&... data) : kernel_(k) {
        static_assert(detail::data_argument_count<layout::data_count, sizeof...(Data)>::value,
                      "gradc::ceres::make_cost_function: give one argument per kernel variable not in wrt(...), "
                      "in variable order (see data_argument_count<expected, got> below)");
        if constexpr (sizeof...(Data) == layout::data_count) {
            [&]<std::size_t... i>(std::index_sequence<i...>) {
                (copy_data<layout::data_variables[i]>(data), ...);
            }(std::index_sequence_for<Data...>{});
        }
    }

    /// Ceres's contract: the residuals, and each Jacobian block that is asked for
    /// (row-major, residuals × block size; a null `jacobians` or block is skipped).
    bool Evaluate(double const* const* parameters, double* residuals, double** jacobians) const override {
        std::array<const double*, arity> x;
        for (std::size_t v = 0; v < arity; ++v)
            x[v] = layout::block_of[v] == layout::not_a_block ? data_.data() + layout::data_offset[v]
                                                              : parameters[layout::block_of[v]];
        std::array<double*, layout::outputs> values;
        for (std::size_t m = 0; m < layout::outputs; ++m) values[m] = residuals + layout::residual_offset[m];
        kernel_.value_at(x.data(), values.data());
        if (jacobians == nullptr) return true;

        // Column e of block b: the tangent of every residual for the unit tangent of
        // entry e of block b (every other block's tangent zero).
        const std::array<double, layout::largest_block> zero{};
        std::array<double, layout::largest_block> unit{};
        std::array<const double*, layout::blocks> dx;
        std::array<double, layout::residuals> ignored_values, column;
        std::array<double*, layout::outputs> value_out, tangent_out;
        for (std::size_t m = 0; m < layout::outputs; ++m) {
            value_out[m] = ignored_values.data() + layout::residual_offset[m];
            tangent_out[m] = column.data() + layout::residual_offset[m];
        }
        for (std::size_t b = 0; b < layout::blocks; ++b) {
            if (jacobians[b] == nullptr) continue;
            const std::size_t size = Kernel::wrt_shape(b).size();
            for (std::size_t j = 0; j < layout::blocks; ++j) dx[j] = j == b ? unit.data() : zero.data();
            for (std::size_t e = 0; e < size; ++e) {
                unit.fill(0.0);
                unit[e] = 1.0;
                kernel_.tangent_at(x.data(), dx.data(), value_out.data(), tangent_out.data());
                for (std::size_t r = 0; r < layout::residuals; ++r) jacobians[b][r * size + e] = column[r];
            }
        }
        return true;
    }

    const Kernel& kernel() const { return kernel_; }  ///< The compiled kernel it evaluates.

private:
    template <std::size_t V, class X>
    void copy_data(const X& x) {
        constexpr rules::arrays::dims shape = Kernel::shapes[V];
        static_assert(lower::argument_fits<X, shape>(),
                      "gradc::ceres::make_cost_function: a data argument does not fit its variable: give a number "
                      "for a scalar, and for a vec<N> or mat<R, C> a std::array or std::span of N or R·C values "
                      "(row-major), or an Eigen matrix of that size");
        if constexpr (lower::argument_fits<X, shape>()) {
            std::array<double, shape.size()> buffer;
            const double* p = lower::argument_pointer<double, shape>("make_cost_function", V, x, buffer);
            for (std::size_t e = 0; e < shape.size(); ++e) data_[layout::data_offset[V] + e] = p[e];
        }
    }

    Kernel kernel_;
    std::array<double, layout::data_entries> data_{};
};

}  // namespace gradc::ceres
