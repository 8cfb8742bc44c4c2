// Tensor factories.
#include <cmath>
#include <mutex>
#include <random>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "internal.hpp"
#include "kernels/convert.hpp"

namespace gradc {

namespace {

Tensor finish(Tensor t, const TensorOptions& o) {
    if (o.requires_grad()) t.set_requires_grad(true);
    return t;
}

template <class V>
Tensor from_values(const V* values, std::size_t n, const Shape& sizes, ScalarType dt) {
    Tensor t = uninitialized_tensor(sizes, dt);  // every element written below, or an error
    if (static_cast<std::int64_t>(n) != t.numel())
        throw Error("gradc: tensor: " + std::to_string(n) + " values cannot fill shape " + shape_string(sizes));
    dispatch(dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* p = static_cast<T*>(t.raw_data());
        for (std::size_t i = 0; i < n; ++i) p[i] = kernels::convert_value<T>(values[i]);
    });
    return t;
}

}  // namespace

Tensor scalar_tensor(double value, TensorOptions options) {
    return finish(from_values(&value, 1, {}, options.dtype()), options);
}

namespace detail {

Tensor make_tensor(const std::vector<double>& values, const Shape& sizes, ScalarType dtype, const TensorOptions& options) {
    return finish(from_values(values.data(), values.size(), sizes, dtype), options);
}

Tensor make_complex_tensor(const std::vector<std::complex<double>>& values, const TensorOptions& options) {
    const ScalarType dt = options.dtype_or(to_complex_type(get_default_dtype()));
    if (!is_complex(dt)) throw Error("gradc: tensor: complex values need a complex dtype, got " + std::string(to_string(dt)));
    return finish(from_values(values.data(), values.size(), {static_cast<std::int64_t>(values.size())}, dt), options);
}

void check_row_length(std::size_t row, std::size_t length, std::size_t expected) {
    if (length != expected)
        throw Error("gradc: tensor: row " + std::to_string(row) + " has " + std::to_string(length) + " values, expected " +
                    std::to_string(expected) + " like row 0");
}

}  // namespace detail

Tensor tensor_i64(std::initializer_list<std::int64_t> values) {
    return from_values(values.begin(), values.size(), {static_cast<std::int64_t>(values.size())}, kInt64);
}

Tensor tensor_i64(const std::vector<std::int64_t>& values, const Shape& sizes) {
    return from_values(values.data(), values.size(), sizes, kInt64);
}

Tensor from_vector(const std::vector<double>& values, const Shape& sizes, TensorOptions options) {
    return finish(from_values(values.data(), values.size(), sizes, options.dtype()), options);
}

// Uninitialised, as LibTorch's `empty`: the caller writes every element before reading.
Tensor empty(const Shape& sizes, TensorOptions options) {
    return finish(uninitialized_tensor(sizes, options.dtype()), options);
}

Tensor zeros(const Shape& sizes, TensorOptions options) { return finish(zeroed_tensor(sizes, options.dtype()), options); }

Tensor full(const Shape& sizes, double value, TensorOptions options) {
    Tensor t = uninitialized_tensor(sizes, options.dtype());
    detail::fill_raw(t, value);
    return finish(t, options);
}

Tensor ones(const Shape& sizes, TensorOptions options) { return full(sizes, 1.0, options); }

Tensor zeros_like(const Tensor& t, std::optional<TensorOptions> options) {
    return zeros(t.sizes(), options.value_or(TensorOptions()).dtype(options && options->has_dtype() ? options->dtype() : t.dtype()));
}
Tensor ones_like(const Tensor& t, std::optional<TensorOptions> options) { return full_like(t, 1.0, options); }
Tensor full_like(const Tensor& t, double value, std::optional<TensorOptions> options) {
    return full(t.sizes(), value, options.value_or(TensorOptions()).dtype(options && options->has_dtype() ? options->dtype() : t.dtype()));
}

Tensor arange(double end, TensorOptions options) { return arange(0, end, 1, options); }

Tensor arange(double start, double end, double step, TensorOptions options) {
    if (step == 0 || (end - start) / step < 0)
        throw Error("gradc: arange: upper bound and larger bound inconsistent with step sign (start " + std::to_string(start) +
                    ", end " + std::to_string(end) + ", step " + std::to_string(step) + ")");
    const auto n = static_cast<std::int64_t>(std::ceil((end - start) / step));
    std::vector<double> v(n);
    for (std::int64_t i = 0; i < n; ++i) v[i] = start + static_cast<double>(i) * step;
    return from_vector(v, {n}, options);
}

Tensor linspace(double start, double end, std::int64_t steps, TensorOptions options) {
    if (steps < 0) throw Error("gradc: linspace: number of steps must be non-negative, got " + std::to_string(steps));
    std::vector<double> v(steps);
    const double step = steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0;
    // Fill from both ends so the last point is exactly `end`.
    for (std::int64_t i = 0; i < steps; ++i)
        v[i] = i < steps / 2 ? start + step * static_cast<double>(i) : end - step * static_cast<double>(steps - 1 - i);
    return from_vector(v, {steps}, options);
}

Tensor eye(std::int64_t n, TensorOptions options) { return eye(n, n, options); }

Tensor eye(std::int64_t n, std::int64_t m, TensorOptions options) {
    if (n < 0 || m < 0) throw Error("gradc: eye: sizes must be non-negative, got " + std::to_string(n) + "x" + std::to_string(m));
    std::vector<double> v(static_cast<std::size_t>(n * m), 0.0);
    for (std::int64_t i = 0; i < std::min(n, m); ++i) v[i * m + i] = 1.0;
    return from_vector(v, {n, m}, options);
}

namespace {
// One process-wide generator, as PyTorch's default CPU generator: threads drawing at once
// take turns (each call draws its whole tensor under the lock), so a seeded program is
// reproducible when its threads draw in a fixed order. The distributions are <random>'s:
// their algorithms are the standard library's, so a seed gives the same numbers wherever
// libgradc was built with the same standard library (libstdc++ on Debian, for both g++
// and clang).
std::mutex generator_mutex;
std::mt19937_64& generator() {
    static std::mt19937_64 gen(5489u);
    return gen;
}
}  // namespace

void manual_seed(std::uint64_t seed) {
    std::lock_guard<std::mutex> lock(generator_mutex);
    generator().seed(seed);
}

Tensor rand(const Shape& sizes, TensorOptions options) {
    std::vector<double> v(static_cast<std::size_t>(shape_numel(sizes)));
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    {
        std::lock_guard<std::mutex> lock(generator_mutex);
        for (auto& x : v) x = uniform(generator());
    }
    return from_vector(v, sizes, options);
}

Tensor randn(const Shape& sizes, TensorOptions options) {
    std::vector<double> v(static_cast<std::size_t>(shape_numel(sizes)));
    std::normal_distribution<double> normal(0.0, 1.0);
    {
        std::lock_guard<std::mutex> lock(generator_mutex);
        for (auto& x : v) x = normal(generator());
    }
    return from_vector(v, sizes, options);
}

Tensor randint(std::int64_t low, std::int64_t high, const Shape& sizes) {
    if (high <= low) throw Error("gradc: randint: expected low < high, got [" + std::to_string(low) + ", " + std::to_string(high) + ")");
    std::vector<std::int64_t> v(static_cast<std::size_t>(shape_numel(sizes)));
    std::uniform_int_distribution<std::int64_t> uniform(low, high - 1);
    {
        std::lock_guard<std::mutex> lock(generator_mutex);
        for (auto& x : v) x = uniform(generator());
    }
    return tensor_i64(v, sizes);
}

}  // namespace gradc
