#pragma once
/// \file
/// Map-reduce over the ranks of an MPI communicator (Open MPI or any MPI-3 library; the
/// program links MPI itself, e.g. with mpicxx or Meson's `dependency('mpi')`):
///
///     auto r = gradc::mpi::map_reduce(MPI_COMM_WORLD, k, local_data, theta);
///     auto h = gradc::mpi::map_reduce_hessian(MPI_COMM_WORLD, k, local_data, theta);
///
/// Each rank reduces its own shard of points with the kernel's map-reduce (on its own
/// threads, parallel/threads.hpp), then every rank receives every rank's partial sums
/// (one MPI_Allgather of 1 + W doubles per rank, or 1 + W + W(W+1)/2 for the Hessian) and
/// adds them in rank order. Every rank returns the same global result, bitwise; for a
/// given number of ranks and split of the data it is deterministic. Against one process
/// over all points it differs only by the order of the additions (docs/scaling.md). All
/// ranks must call with the same theta; MPI errors are reported as gradc::Error.

#include <array>
#include <cstddef>
#include <string>
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

/// Σ over every rank's points of f(θ, xᵢ) and its θ-gradient (a `gradient_result`).
/// `local_data` and `theta` are those of `k.map_reduce`; `options` (a thread count, an
/// architecture) are passed on to it.
template <class Kernel, class Data, class Theta, class... Options>
auto map_reduce(MPI_Comm comm, const Kernel& k, const Data& local_data, const Theta& theta, const Options&... options) {
    const auto local = k.map_reduce(local_data, theta, options...);
    using T = decltype(local.value);
    constexpr std::size_t W = Kernel::wrt_count;
    std::array<double, 1 + W> sums;
    sums[0] = local.value;
    for (std::size_t j = 0; j < W; ++j) sums[1 + j] = local.gradient[j];
    const auto total = detail::sum_in_rank_order(comm, sums, "map_reduce");
    gradient_result<T, W> r;
    r.value = static_cast<T>(total[0]);
    for (std::size_t j = 0; j < W; ++j) r.gradient[j] = static_cast<T>(total[1 + j]);
    return r;
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
