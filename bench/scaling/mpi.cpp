/// Strong scaling over MPI ranks: N points in total (GRADC_BENCH_N, default 10,000,000)
/// split evenly over the ranks, each rank one thread; times 20 calls of
/// gradc::mpi::map_reduce for the loglik and calibration kernels (and 3 calls for the
/// ADBench GMM's point term, an array kernel) and prints, on rank 0,
/// the time per call and the bytes each call sends. Run with `mpiexec -np 1` and `-np 2`.

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <span>

#include <mpi.h>

#include <gradc/gradc.hpp>
#include <gradc/mpi.hpp>

#include "gmm.hpp"
#include "kernels.hpp"

template <std::size_t D, class Kernel>
void run(const char* name, const Kernel& k, const std::vector<std::array<double, 2>>& ranges,
         const std::array<double, 2>& theta, std::size_t n_total, int rank, int ranks) {
    const auto d = scaling::data(n_total / static_cast<std::size_t>(ranks), ranges, 10 + static_cast<unsigned>(rank));
    std::array<std::span<const double>, D> s;
    for (std::size_t j = 0; j < D; ++j) s[j] = d[j];
    constexpr int calls = 20;
    (void)gradc::mpi::map_reduce(MPI_COMM_WORLD, k, s, theta, gradc::threads{1});  // warm-up
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = std::chrono::steady_clock::now();
    for (int c = 0; c < calls; ++c) (void)gradc::mpi::map_reduce(MPI_COMM_WORLD, k, s, theta, gradc::threads{1});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (rank == 0)
        std::printf("%s: %d rank(s), %zu points, %.3f ms per call, %.3f ns per point, %zu bytes sent per rank per call\n",
                    name, ranks, n_total, 1e3 * seconds / calls, 1e9 * seconds / calls / double(n_total),
                    (1 + Kernel::wrt_count) * sizeof(double));
}

void run_gmm(std::size_t n_total, int rank, int ranks) {
    const scaling::gmm_parameters p;
    const gmm_model<scaling::gmm_d, scaling::gmm_K> model;
    const auto d = scaling::data(n_total / static_cast<std::size_t>(ranks), scaling::gmm_ranges, 20 + static_cast<unsigned>(rank));
    constexpr int calls = 3;
    const auto& k = model.point_kernel;
    (void)gradc::mpi::map_reduce(MPI_COMM_WORLD, k, d, p.a, p.mu, p.q, gradc::threads{1});  // warm-up
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = std::chrono::steady_clock::now();
    for (int c = 0; c < calls; ++c) (void)gradc::mpi::map_reduce(MPI_COMM_WORLD, k, d, p.a, p.mu, p.q, gradc::threads{1});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    constexpr std::size_t numbers = 1 + scaling::gmm_K * (1 + scaling::gmm_d + scaling::gmm_P);
    if (rank == 0)
        std::printf("GMM point term map_reduce: %d rank(s), %zu points, %.3f ms per call, %.3f ns per point, %zu bytes sent per rank per call\n",
                    ranks, n_total, 1e3 * seconds / calls, 1e9 * seconds / calls / double(n_total), numbers * sizeof(double));
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const char* env = std::getenv("GRADC_BENCH_N");
    const std::size_t n = env ? std::strtoull(env, nullptr, 10) : 10'000'000;
    run<1>("loglik map_reduce", scaling::loglik_kernel(), scaling::loglik_ranges, scaling::loglik_theta, n, rank, ranks);
    run<3>("calibration map_reduce", scaling::calibration_kernel(), scaling::option_ranges, scaling::option_theta, n,
           rank, ranks);
    run_gmm(n, rank, ranks);
    MPI_Finalize();
}
