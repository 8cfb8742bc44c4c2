#pragma once
/// \file
/// Map-reduce over the ranks of an MPI communicator (Open MPI or any MPI-3 library; the
/// program links MPI itself, e.g. with mpicxx or Meson's `dependency('mpi')`):
///
///     auto r = gradc::mpi::map_reduce(MPI_COMM_WORLD, k, local_data, theta);
///     auto h = gradc::mpi::map_reduce_hessian(MPI_COMM_WORLD, k, local_data, theta);
///     auto a = gradc::mpi::map_reduce(MPI_COMM_WORLD, array_k, local_data, W, b);  // array kernel
///     double v = gradc::mpi::map_reduce_value(MPI_COMM_WORLD, array_k, local_data, W, b);
///
/// Each rank reduces its own shard of points with the kernel's map-reduce (on its own
/// threads, parallel/threads.hpp), then every rank receives every rank's partial sums
/// (one MPI_Allgather of 1 + W doubles per rank, W the number of θ entries, or
/// 1 + W + W(W+1)/2 for the Hessian) and
/// adds them in rank order. Every rank returns the same global result, bitwise; for a
/// given number of ranks and split of the data it is deterministic. Against one process
/// over all points it differs only by the order of the additions (docs/scaling.md). All
/// ranks must call with the same theta; MPI errors are reported as gradc::Error.

#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <mpi.h>

#include <gradc/error.hpp>
#include <gradc/lower/results.hpp>
#include <gradc/lower/second_order.hpp>

namespace gradc::mpi {

namespace detail {

inline void check(int code, const char* what) {
    if (code == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    throw gradc::Error(std::string("gradc::mpi::") + what + ": MPI error: " + std::string(text, static_cast<std::size_t>(length)));
}

/// Every rank's `local` summed in rank order, on every rank.
template <std::size_t K>
std::array<double, K> sum_in_rank_order(MPI_Comm comm, const std::array<double, K>& local, const char* what) {
    int ranks = 0;
    check(MPI_Comm_size(comm, &ranks), what);
    std::vector<double> all(static_cast<std::size_t>(ranks) * K);
    check(MPI_Allgather(local.data(), static_cast<int>(K), MPI_DOUBLE, all.data(), static_cast<int>(K), MPI_DOUBLE, comm),
          what);
    std::array<double, K> total{};
    for (int r = 0; r < ranks; ++r)
        for (std::size_t k = 0; k < K; ++k) total[k] += all[static_cast<std::size_t>(r) * K + k];
    return total;
}

}  // namespace detail

namespace detail {

/// How many numbers a result field holds: a number, a std::array of them, or a std::tuple
/// of either (an array kernel's gradient: one entry per wrt variable).
template <class X>
struct number_count : std::integral_constant<std::size_t, 1> {};
template <class U, std::size_t N>
struct number_count<std::array<U, N>> : std::integral_constant<std::size_t, N * number_count<U>::value> {};
template <class... U>
struct number_count<std::tuple<U...>> : std::integral_constant<std::size_t, (0 + ... + number_count<U>::value)> {};

/// Calls f on every number of x, in memory order.
template <class X, class F>
void for_each_number(X& x, F& f) {
    if constexpr (std::is_arithmetic_v<std::remove_const_t<X>>) {
        f(x);
    } else {
        std::apply([&](auto&... e) { (for_each_number(e, f), ...); }, x);  // std::array and std::tuple alike
    }
}

/// `local` with its value and gradient replaced by their sums over the ranks, in rank
/// order: one MPI_Allgather of every number.
template <class Result>
Result sum_result(MPI_Comm comm, Result local, const char* what) {
    constexpr std::size_t n = 1 + number_count<decltype(local.gradient)>::value;
    std::array<double, n> sums;
    std::size_t i = 0;
    auto pack = [&](const auto& v) { sums[i++] = static_cast<double>(v); };
    for_each_number(local.value, pack);
    for_each_number(local.gradient, pack);
    const auto total = sum_in_rank_order(comm, sums, what);
    i = 0;
    auto unpack = [&](auto& v) { v = static_cast<std::remove_reference_t<decltype(v)>>(total[i++]); };
    for_each_number(local.value, unpack);
    for_each_number(local.gradient, unpack);
    return local;
}

}  // namespace detail

/// Σ over every rank's points of f(θ, xᵢ) and its θ-gradient, as `k.map_reduce` returns
/// them (a `gradient_result` for a scalar kernel, an `array_gradient_result` with one
/// gradient entry per wrt variable for an array kernel). The arguments after `comm` and
/// `k` are those of `k.map_reduce`: the local data, θ (one argument per wrt variable for
/// an array kernel), and optionally a call option (a thread count, an architecture).
template <class Kernel, class Data, class Theta, class... Options>
auto map_reduce(MPI_Comm comm, const Kernel& k, const Data& local_data, const Theta& theta, const Options&... options) {
    return detail::sum_result(comm, k.map_reduce(local_data, theta, options...), "map_reduce");
}

/// Σ over every rank's points of f(θ, xᵢ) alone (`k.map_reduce_value`), for kernels that
/// have it (array kernels): one MPI_Allgather of one number per rank.
template <class Kernel, class Data, class Theta, class... Options>
auto map_reduce_value(MPI_Comm comm, const Kernel& k, const Data& local_data, const Theta& theta,
                      const Options&... options) {
    const auto local = k.map_reduce_value(local_data, theta, options...);
    using T = std::remove_cv_t<decltype(local)>;
    const auto total = detail::sum_in_rank_order(comm, std::array<double, 1>{static_cast<double>(local)}, "map_reduce_value");
    return static_cast<T>(total[0]);
}

/// Σ over every rank's points of f, its θ-gradient and its θ-Hessian (a `hessian_result`).
template <class Kernel, class Data, class Theta, class... Options>
auto map_reduce_hessian(MPI_Comm comm, const Kernel& k, const Data& local_data, const Theta& theta,
                        const Options&... options) {
    const auto local = k.map_reduce_hessian(local_data, theta, options...);
    using T = decltype(local.value);
    constexpr std::size_t W = Kernel::wrt_count;
    constexpr std::size_t H = lower::triangle_size(W);
    std::array<double, 1 + W + H> sums;
    sums[0] = local.value;
    std::size_t at = 1 + W;
    for (std::size_t i = 0; i < W; ++i) {
        sums[1 + i] = local.gradient[i];
        for (std::size_t j = i; j < W; ++j) sums[at++] = local.hessian[i][j];
    }
    const auto total = detail::sum_in_rank_order(comm, sums, "map_reduce_hessian");
    hessian_result<T, W> r;
    r.value = static_cast<T>(total[0]);
    std::array<T, H> upper;
    for (std::size_t i = 0; i < W; ++i) r.gradient[i] = static_cast<T>(total[1 + i]);
    for (std::size_t t = 0; t < H; ++t) upper[t] = static_cast<T>(total[1 + W + t]);
    r.hessian = lower::symmetric_from_upper<T, W>(upper.data());
    return r;
}

}  // namespace gradc::mpi
