// gradc::mpi::map_reduce and map_reduce_value with array kernels, under mpiexec: the
// ADBench GMM point term (examples/gmm_objective.hpp, three wrt variables of 5, 50 and
// 275 numbers) and a least-squares line fit with a vector of weights. Every rank builds
// the same n points, reduces its own contiguous shard over MPI, and checks that
//  - the global sums equal one process's map_reduce over all n points (they differ only
//    by the order of the additions: relative 1e-12);
//  - every rank holds the same result, bit for bit.
// Exit status 0 on every rank when all checks pass.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <span>
#include <vector>

#include <mpi.h>

#include <gradc/gradc.hpp>
#include <gradc/mpi.hpp>

#include "../../examples/gmm_objective.hpp"

namespace {

int failures = 0;

void expect_close(const char* what, double got, double want) {
    const double scale = std::max({1.0, std::abs(want)});
    if (!(std::abs(got - want) <= 1e-12 * scale)) {
        std::fprintf(stderr, "mpi map_reduce (%s): got %.17g, one process gives %.17g\n", what, got, want);
        ++failures;
    }
}

/// Every number of `numbers` is the same on every rank, bit for bit.
void expect_same_on_every_rank(const char* what, const std::vector<double>& numbers) {
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    std::vector<double> all(numbers.size() * static_cast<std::size_t>(ranks));
    MPI_Allgather(numbers.data(), static_cast<int>(numbers.size()), MPI_DOUBLE, all.data(),
                  static_cast<int>(numbers.size()), MPI_DOUBLE, MPI_COMM_WORLD);
    for (int r = 1; r < ranks; ++r)
        if (std::memcmp(all.data(), all.data() + static_cast<std::size_t>(r) * numbers.size(),
                        numbers.size() * sizeof(double)) != 0) {
            std::fprintf(stderr, "mpi map_reduce (%s): rank %d's result differs from rank 0's\n", what, r);
            ++failures;
        }
}

/// Rank `rank`'s contiguous share of every column.
std::vector<std::span<const double>> shard(const std::vector<std::vector<double>>& columns, int rank, int ranks) {
    const std::size_t n = columns[0].size();
    const std::size_t begin = n * static_cast<std::size_t>(rank) / static_cast<std::size_t>(ranks);
    const std::size_t end = n * static_cast<std::size_t>(rank + 1) / static_cast<std::size_t>(ranks);
    std::vector<std::span<const double>> s;
    for (const auto& c : columns) s.emplace_back(c.data() + begin, end - begin);
    return s;
}

template <class Result>
std::vector<double> numbers_of(const Result& r) {
    std::vector<double> v{double(r.value)};
    std::apply([&](const auto&... g) { (v.insert(v.end(), g.begin(), g.end()), ...); }, r.gradient);
    return v;
}

void check_results(const char* what, const std::vector<double>& got, const std::vector<double>& want) {
    if (got.size() != want.size()) {
        std::fprintf(stderr, "mpi map_reduce (%s): %zu numbers, expected %zu\n", what, got.size(), want.size());
        ++failures;
        return;
    }
    for (std::size_t i = 0; i < got.size(); ++i) expect_close(what, got[i], want[i]);
    expect_same_on_every_rank(what, got);
}

void line_fit(int rank, int ranks) {
    // Σ (y − w·x − b)² over points x ∈ R³: the weights are a vec<3>, the intercept a scalar.
    auto [w, b, x, y] = gradc::variables(gradc::vec<3>, gradc::scalar, gradc::vec<3>, gradc::scalar);
    const auto r = y - gradc::dot(w, x) - b;
    const auto k = gradc::compile(r * r, gradc::wrt(w, b));
    std::mt19937_64 gen(7);
    std::normal_distribution<double> normal;
    const std::size_t n = 10'007;  // not a multiple of any batch or shard size
    std::vector<std::vector<double>> columns(4, std::vector<double>(n));
    for (std::size_t i = 0; i < n; ++i) {
        for (int j = 0; j < 3; ++j) columns[static_cast<std::size_t>(j)][i] = normal(gen);
        columns[3][i] = 0.5 * columns[0][i] - columns[1][i] + 2.0 * columns[2][i] + 0.3 + 0.1 * normal(gen);
    }
    const std::array<double, 3> weights{0.4, -0.9, 1.7};
    const double intercept = 0.2;
    const auto whole = k.map_reduce(columns, weights, intercept);
    const auto mine = shard(columns, rank, ranks);
    const auto global = gradc::mpi::map_reduce(MPI_COMM_WORLD, k, mine, weights, intercept);
    std::vector<double> want{whole.value};
    want.insert(want.end(), std::get<0>(whole.gradient).begin(), std::get<0>(whole.gradient).end());
    want.push_back(std::get<1>(whole.gradient));
    std::vector<double> got{global.value};
    got.insert(got.end(), std::get<0>(global.gradient).begin(), std::get<0>(global.gradient).end());
    got.push_back(std::get<1>(global.gradient));
    check_results("line fit", got, want);
    const double value = gradc::mpi::map_reduce_value(MPI_COMM_WORLD, k, mine, weights, intercept);
    check_results("line fit, value alone", {value}, {k.map_reduce_value(columns, weights, intercept)});
}

void gmm(int rank, int ranks) {
    constexpr std::size_t d = 10, K = 5, P = d * (d + 1) / 2;
    const gmm_model<d, K> model;
    std::mt19937_64 gen(11);
    std::normal_distribution<double> normal;
    const std::size_t n = 3'001;
    std::vector<std::vector<double>> points(d, std::vector<double>(n));
    for (auto& c : points)
        for (auto& v : c) v = normal(gen);
    std::array<double, K> a;
    std::array<double, K * d> mu;
    std::array<double, K * P> q;
    for (auto& v : a) v = normal(gen);
    for (auto& v : mu) v = normal(gen);
    for (auto& v : q) v = 0.1 * normal(gen);
    const auto whole = model.point_kernel.map_reduce(points, a, mu, q);
    const auto mine = shard(points, rank, ranks);
    const auto global = gradc::mpi::map_reduce(MPI_COMM_WORLD, model.point_kernel, mine, a, mu, q);
    check_results("GMM point term", numbers_of(global), numbers_of(whole));
    const double value = gradc::mpi::map_reduce_value(MPI_COMM_WORLD, model.point_kernel, mine, a, mu, q);
    check_results("GMM point term, value alone", {value}, {model.point_kernel.map_reduce_value(points, a, mu, q)});
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    line_fit(rank, ranks);
    gmm(rank, ranks);
    int worst = 0;
    MPI_Allreduce(&failures, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) std::printf("mpi map_reduce with array kernels on %d rank(s): %s\n", ranks, worst ? "FAILED" : "passed");
    MPI_Finalize();
    return worst ? 1 : 0;
}
