// A distributed maximum-likelihood fit: each MPI rank draws its own shard of points
// (seeded by its rank), and Newton's method runs on the global log-likelihood, its
// gradient and its Hessian from gradc::mpi::map_reduce_hessian: one map-reduce per rank
// and one MPI_Allgather of six numbers per step. Every rank ends with the same fit.
//
// Run with `mpiexec -np 2 ./mpi_fit` (or on a cluster: docs/scaling.md). Rank 0 then
// draws every rank's shard itself and fits them in one process with k.map_reduce_hessian;
// the two fits must agree to 1e-9 (they differ only in the order of additions), and the
// fitted normal's μ and σ must be within 5 standard errors of the truth.
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <span>
#include <vector>

#include <mpi.h>

#include <gradc/gradc.hpp>
#include <gradc/mpi.hpp>

#include "newton_step.hpp"

namespace {

constexpr double true_mu = -0.7, true_sigma = 1.9;
constexpr std::size_t points_per_rank = 200'000;

std::vector<double> shard(int rank) {
    std::mt19937_64 rng(1000 + static_cast<unsigned>(rank));
    std::normal_distribution<double> normal(true_mu, true_sigma);
    std::vector<double> x(points_per_rank);
    for (auto& v : x) v = normal(rng);
    return x;
}

/// Newton on (μ, log σ) from a fixed start; `reduce(theta)` returns the summed value,
/// gradient and Hessian.
template <class Reduce>
std::array<double, 2> newton(Reduce reduce, int& steps) {
    std::array<double, 2> theta{0.0, 0.0};
    double change = 1;
    for (steps = 0; steps < 30 && change > 1e-13; ++steps) {
        change = newton_step(reduce(theta), theta);
    }
    return theta;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);

    auto [x, mu, s] = gradc::variables<3>();
    const auto z = (x - mu) * exp(-s);
    const auto k = gradc::compile(-s - 0.5 * z * z, gradc::wrt(mu, s));

    const std::vector<double> local = shard(rank);
    const std::array<std::span<const double>, 1> data{local};
    int steps = 0;
    const auto theta = newton(
        [&](const std::array<double, 2>& t) { return gradc::mpi::map_reduce_hessian(MPI_COMM_WORLD, k, data, t); },
        steps);

    int status = 0;
    if (rank == 0) {
        std::vector<double> all;
        for (int r = 0; r < ranks; ++r) {
            const auto part = shard(r);
            all.insert(all.end(), part.begin(), part.end());
        }
        const std::array<std::span<const double>, 1> everything{all};
        int one_steps = 0;
        const auto one = newton([&](const std::array<double, 2>& t) { return k.map_reduce_hessian(everything, t); },
                                one_steps);
        const double n = static_cast<double>(all.size());
        std::printf("%d rank(s), %zu points: mu = %.10f, sigma = %.10f after %d Newton steps\n", ranks, all.size(),
                    theta[0], std::exp(theta[1]), steps);
        std::printf("one process:        mu = %.10f, sigma = %.10f after %d Newton steps\n", one[0], std::exp(one[1]),
                    one_steps);
        const bool same = std::abs(theta[0] - one[0]) < 1e-9 && std::abs(theta[1] - one[1]) < 1e-9;
        const bool close = std::abs(theta[0] - true_mu) < 5 * true_sigma / std::sqrt(n) &&
                           std::abs(std::exp(theta[1]) - true_sigma) < 5 * true_sigma / std::sqrt(2 * n);
        if (!same) std::printf("FAILED: the distributed fit differs from the one-process fit\n");
        if (!close) std::printf("FAILED: the fit is more than 5 standard errors from the truth\n");
        status = same && close ? 0 : 1;
    }
    // Every rank holds the same fit: check it, and share rank 0's verdict.
    std::array<double, 2> root_theta = theta;
    MPI_Bcast(root_theta.data(), 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (root_theta != theta) {
        std::printf("FAILED: rank %d holds a different fit than rank 0\n", rank);
        status = 1;
    }
    int worst = 0;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return worst;
}
