// A multivariate Gaussian log-likelihood, Σᵢ log N(xᵢ; μ, S) up to its constant, and its
// gradient with respect to S and μ over n = 1,000 points of dimension d = 4 and 8, one
// thread: gradc static (map_reduce of −½·log_det(S) − ½·(x − μ)ᵀS⁻¹(x − μ): cholesky,
// lu_factor and lu_solve, the factorisations computed once per call), a hand-written
// Eigen version (one LLT, two triangular solves per point, the gradient by the closed
// forms −n/2·S⁻¹ + ½·Σ yyᵀ and Σ y with y = S⁻¹(x − μ)), and gradc's dynamic mode
// (linalg::solve and logdet on the n points at once). Every system's value and gradient
// are checked against the hand-written ones (1e-10 relative) before timing.
//
// GCC 12 reports -W(maybe-)uninitialized inside its own avx512fintrin.h where Eigen's
// AVX-512 packets are inlined (GCC bug 105593, see gradc/math/xsimd.hpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <Eigen/Dense>

#include <gradc/autograd.hpp>
#include <gradc/gradc.hpp>

namespace {

template <std::size_t d>
struct gaussian_input {
    std::vector<std::vector<double>> x;  // d spans of n values
    std::array<double, d * d> S{};
    std::array<double, d> mu{};
    explicit gaussian_input(std::size_t n) : x(d, std::vector<double>(n)) {
        for (std::size_t j = 0; j < d; ++j)
            for (std::size_t i = 0; i < n; ++i) x[j][i] = std::sin(0.731 * double(i * d + j)) * 1.5;
        for (std::size_t r = 0; r < d; ++r) {
            mu[r] = 0.1 * std::cos(double(r));
            for (std::size_t c = 0; c < d; ++c) S[r * d + c] = (r == c ? 2.0 : 0.0) + 0.3 * std::cos(double(r + c));
        }
    }
};

struct result {
    double value;
    std::vector<double> gradient;  // S row-major, then μ
};

template <std::size_t d>
auto make_kernel() {
    auto [S, mu, x] = gradc::variables(gradc::mat<d, d>, gradc::vec<d>, gradc::vec<d>);
    const auto v = x - mu;
    return gradc::compile(-0.5 * log_det(S) - 0.5 * dot(v, solve(S, v)), gradc::wrt(S, mu));
}
/// The kernel, compiled once per dimension.
template <std::size_t d>
const auto& kernel() {
    static const auto k = make_kernel<d>();
    return k;
}

template <std::size_t d>
result gradc_static(const gaussian_input<d>& in) {
    const auto r = kernel<d>().map_reduce(in.x, in.S, in.mu, gradc::threads{1});
    result out{r.value, {}};
    out.gradient.assign(std::get<0>(r.gradient).begin(), std::get<0>(r.gradient).end());
    out.gradient.insert(out.gradient.end(), std::get<1>(r.gradient).begin(), std::get<1>(r.gradient).end());
    return out;
}

template <std::size_t d>
result hand(const gaussian_input<d>& in) {
    using matrix = Eigen::Matrix<double, int(d), int(d), Eigen::RowMajor>;
    using vector = Eigen::Matrix<double, int(d), 1>;
    const Eigen::Map<const matrix> S(in.S.data());
    const Eigen::Map<const vector> mu(in.mu.data());
    const Eigen::LLT<matrix> llt(S);
    const std::size_t n = in.x[0].size();
    double quadratic = 0;
    matrix yy = matrix::Zero();
    vector ysum = vector::Zero();
    for (std::size_t i = 0; i < n; ++i) {
        vector v;
        for (std::size_t j = 0; j < d; ++j) v[int(j)] = in.x[j][i] - mu[int(j)];
        const vector z = llt.matrixL().solve(v);
        const vector y = llt.matrixU().solve(z);
        quadratic += z.squaredNorm();
        ysum += y;
        yy.noalias() += y * y.transpose();
    }
    const matrix inverse = llt.solve(matrix::Identity());
    const double log_det = 2 * llt.matrixLLT().diagonal().array().log().sum();
    const matrix gS = -0.5 * double(n) * inverse + 0.5 * yy;
    result out{-0.5 * double(n) * log_det - 0.5 * quadratic, std::vector<double>(gS.data(), gS.data() + d * d)};
    for (std::size_t j = 0; j < d; ++j) out.gradient.push_back(ysum[int(j)]);
    return out;
}

template <std::size_t d>
result dynamic(const gaussian_input<d>& in) {
    gradc::set_num_threads(1);
    const std::int64_t n = std::int64_t(in.x[0].size()), dd = std::int64_t(d);
    std::vector<double> flat;
    for (std::size_t j = 0; j < d; ++j) flat.insert(flat.end(), in.x[j].begin(), in.x[j].end());
    const auto opt = gradc::TensorOptions().dtype(gradc::kDouble);
    const gradc::Tensor X = gradc::from_vector(flat, {dd, n}, opt);  // one column per point
    gradc::Tensor S = gradc::from_vector(std::vector<double>(in.S.begin(), in.S.end()), {dd, dd}, opt.requires_grad(true));
    gradc::Tensor mu = gradc::from_vector(std::vector<double>(in.mu.begin(), in.mu.end()), {dd, 1}, opt.requires_grad(true));
    const gradc::Tensor V = X - mu;
    const gradc::Tensor y = gradc::logdet(S) * (-0.5 * double(n)) - 0.5 * (V * gradc::linalg::solve(S, V)).sum();
    y.backward();
    result out{y.item<double>(), {}};
    for (const gradc::Tensor& g : {S.grad(), mu.grad()}) {
        const gradc::Tensor c = g.contiguous();
        const double* p = c.data_ptr<double>();
        out.gradient.insert(out.gradient.end(), p, p + c.numel());
    }
    return out;
}

template <std::size_t d>
void check_agreement() {
    const gaussian_input<d> in(1000);
    const result h = hand(in);
    auto compare = [&](const char* name, const result& r) {
        double w = std::abs(r.value - h.value) / std::abs(h.value);
        for (std::size_t i = 0; i < h.gradient.size(); ++i)
            w = std::max(w, std::abs(r.gradient[i] - h.gradient[i]) / std::max(1.0, std::abs(h.gradient[i])));
        std::fprintf(stderr, "gaussian d = %zu: %-8s largest relative difference to the hand-written %.2e\n", d, name, w);
        if (r.gradient.size() != h.gradient.size() || !(w <= 1e-10)) {
            std::fprintf(stderr, "gaussian: %s disagrees with the hand-written gradient\n", name);
            std::exit(1);
        }
    };
    compare("static", gradc_static(in));
    compare("dynamic", dynamic(in));
}

const bool agreed = (check_agreement<4>(), check_agreement<8>(), true);

template <std::size_t d, class F>
void run(benchmark::State& state, F f) {
    const gaussian_input<d> in(1000);
    for (auto _ : state) benchmark::DoNotOptimize(f(in));
}

template <std::size_t d>
void BM_gaussian_gradc(benchmark::State& s) {
    run<d>(s, [](const auto& in) { return gradc_static<d>(in).value; });
}
template <std::size_t d>
void BM_gaussian_gradc_value(benchmark::State& s) {
    run<d>(s, [](const auto& in) { return kernel<d>().map_reduce_value(in.x, in.S, in.mu, gradc::threads{1}); });
}
template <std::size_t d>
void BM_gaussian_hand(benchmark::State& s) {
    run<d>(s, [](const auto& in) { return hand<d>(in).value; });
}
template <std::size_t d>
void BM_gaussian_dynamic(benchmark::State& s) {
    run<d>(s, [](const auto& in) { return dynamic<d>(in).value; });
}

BENCHMARK(BM_gaussian_gradc<4>)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gaussian_gradc_value<4>)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gaussian_hand<4>)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gaussian_dynamic<4>)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gaussian_gradc<8>)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gaussian_gradc_value<8>)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gaussian_hand<8>)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gaussian_dynamic<8>)->Unit(benchmark::kMicrosecond);

}  // namespace
