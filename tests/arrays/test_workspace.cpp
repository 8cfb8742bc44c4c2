// Kernels whose node arrays exceed the stack budget keep them in a workspace owned by the
// kernel (include/gradc/lower/array_workspace.hpp): the same values and gradients as the
// closed forms in every call (one point, batch, map-reduce, threads, second order), from
// several threads at once, after a copy outlives its original, and when every slab is
// taken. Small kernels hold nothing. operator new is replaced by a counting one for this
// executable: calls allocate nothing while a slab is free.
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <new>
#include <thread>
#include <type_traits>
#include <vector>

#include "array_check.hpp"

using array_check::close;
using array_check::value_at;

#include "counting_new.hpp"

using counting_new::allocations;
using counting_new::counting;

namespace {

constexpr std::size_t n = 128;  // A, B: n×n; A·B and tanh(A·B) are 128 KiB each on double

std::vector<double> matrix(std::size_t seed, double scale) {
    std::vector<double> m(n * n);
    for (std::size_t i = 0; i < m.size(); ++i) m[i] = scale * value_at(seed * 100003 + i, -1, 1);
    return m;
}

/// f = Σ tanh(A·B), with ∂f/∂A = G·Bᵀ and ∂f/∂B = Aᵀ·G for G = 1 - tanh²(A·B), and the
/// JVP Σ G ⊙ (dA·B + A·dB): loops written here, independently of the kernel.
struct product_closed_form {
    double value = 0, tangent = 0;
    std::vector<double> gA = std::vector<double>(n * n), gB = std::vector<double>(n * n);

    product_closed_form(const std::vector<double>& A, const std::vector<double>& B, const std::vector<double>& dA,
                        const std::vector<double>& dB) {
        std::vector<double> G(n * n);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                double c = 0, dc = 0;
                for (std::size_t k = 0; k < n; ++k) {
                    c += A[i * n + k] * B[k * n + j];
                    dc += dA[i * n + k] * B[k * n + j] + A[i * n + k] * dB[k * n + j];
                }
                const double t = std::tanh(c);
                value += t;
                G[i * n + j] = 1 - t * t;
                tangent += G[i * n + j] * dc;
            }
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j)
                for (std::size_t k = 0; k < n; ++k) {
                    gA[i * n + k] += G[i * n + j] * B[k * n + j];
                    gB[k * n + j] += A[i * n + k] * G[i * n + j];
                }
    }
};

auto product_kernel() {
    auto [A, B] = gradc::variables(gradc::mat<n, n>, gradc::mat<n, n>);
    return gradc::compile(sum(tanh(A * B)));
}
using product_kernel_t = decltype(product_kernel());

template <class R>
void check_product(const R& r, const product_closed_form& c) {
    close(r.value, c.value, 1e-12, 1e-12);
    for (std::size_t e = 0; e < n * n; e += 7) {
        close(std::get<0>(r.gradient)[e], c.gA[e], 1e-11, 1e-12);
        close(std::get<1>(r.gradient)[e], c.gB[e], 1e-11, 1e-12);
    }
}

// f(a, x) = Σᵢⱼ tanh(aᵢ xⱼ) + 0.01 Σᵢ tanh(aᵢ (a·x)): outer(a, x) and outer(a, a) are
// 96×96 intermediates, the second without the data (map-reduce computes it once).
constexpr std::size_t m = 96;

auto outer_kernel() {
    auto [a, x] = gradc::variables(gradc::vec<m>, gradc::vec<m>);
    return gradc::compile(sum(tanh(outer(a, x))) + 0.01 * sum(tanh(outer(a, a) * x)), gradc::wrt(a));
}

double outer_value(const std::vector<double>& a, const std::vector<double>& x, std::vector<double>& grad) {
    double s = 0, f = 0;
    for (std::size_t i = 0; i < m; ++i) s += a[i] * x[i];
    grad.assign(m, 0.0);
    double weighted = 0;  // Σᵢ (1 - tᵢ²) aᵢ
    for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j < m; ++j) {
            const double t = std::tanh(a[i] * x[j]);
            f += t;
            grad[i] += (1 - t * t) * x[j];
        }
        const double t = std::tanh(a[i] * s);
        f += 0.01 * t;
        grad[i] += 0.01 * (1 - t * t) * s;
        weighted += (1 - t * t) * a[i];
    }
    for (std::size_t k = 0; k < m; ++k) grad[k] += 0.01 * weighted * x[k];
    return f;
}

std::vector<double> vector_at(std::size_t seed, double lo, double hi) {
    std::vector<double> v(m);
    for (std::size_t i = 0; i < m; ++i) v[i] = value_at(seed * 1009 + i, lo, hi);
    return v;
}

}  // namespace

TEST_CASE("a small kernel holds no workspace and keeps its size", "[arrays][workspace]") {
    auto [W, b, x] = gradc::variables(gradc::mat<4, 3>, gradc::vec<4>, gradc::vec<3>);
    const auto k = gradc::compile(sum(tanh(W * x + b)), gradc::wrt(W, b));
    using K = std::remove_cvref_t<decltype(k)>;
    static_assert(!K::has_workspace);
    static_assert(K::workspace_slab_bytes == 0);
    static_assert(sizeof(K) == sizeof(typename K::literal_values));
    CHECK(k.workspace_slabs() == 0);
}

TEST_CASE("a kernel with a 128x128 product holds a workspace: one-point calls", "[arrays][workspace]") {
    using K = product_kernel_t;
    static_assert(K::has_workspace);
    // Values and adjoints of A·B, tanh and the sum on a dual of 8 doubles (72 bytes).
    static_assert(K::workspace_slab_bytes >= 2 * (2 * n * n + 1) * 72);
    static_assert(!K::plan::on_stack<double, true> && !K::plan::on_stack<float, false>);
    const auto k = product_kernel();
    CHECK(k.workspace_slabs() == std::size_t(gradc::available_cores()) + 1);

    const auto A = matrix(1, 0.2), B = matrix(2, 0.2), dA = matrix(3, 1), dB = matrix(4, 1);
    const product_closed_form c(A, B, dA, dB);
    check_product(k.gradient(A, B), c);
    close(k(A, B), c.value, 1e-12, 1e-12);
    const auto jv = k.jvp(std::tie(A, B), std::tie(dA, dB));
    close(jv.value, c.value, 1e-12, 1e-12);
    close(jv.tangent, c.tangent, 1e-10, 1e-10);
    const auto vj = k.vjp(std::tie(A, B), 2.0);
    for (std::size_t e = 0; e < n * n; e += 11) close(std::get<0>(vj.gradient)[e], 2 * c.gA[e], 1e-11, 1e-12);

    // Central differences on a few entries: the closed form is the function's gradient.
    for (std::size_t e : {std::size_t(0), std::size_t(4321), n * n - 1}) {
        auto plus = A, minus = A;
        plus[e] += 1e-6;
        minus[e] -= 1e-6;
        close((k(plus, B) - k(minus, B)) / 2e-6, c.gA[e], 1e-6, 1e-8);
    }

    std::vector<float> Af(A.begin(), A.end()), Bf(B.begin(), B.end());
    const auto rf = k.gradient(Af, Bf);
    close(rf.value, c.value, 1e-4, 1e-4);
    for (std::size_t e = 0; e < n * n; e += 101) close(std::get<1>(rf.gradient)[e], c.gB[e], 1e-3, 1e-4);
}

TEST_CASE("workspace kernels: batch, threads, map-reduce and Hessian-vector products", "[arrays][workspace]") {
    const auto k = outer_kernel();
    using K = std::remove_cvref_t<decltype(k)>;
    static_assert(K::has_workspace && !K::plan::on_stack<double, true>);
    const auto a = vector_at(1, -0.5, 0.5);

    // One point against the closed form.
    const auto x0 = vector_at(2, -1, 1);
    std::vector<double> g0;
    const double f0 = outer_value(a, x0, g0);
    const auto r0 = k.gradient(a, x0);
    close(r0.value, f0, 1e-12, 1e-12);
    for (std::size_t i = 0; i < m; ++i) close(std::get<0>(r0.gradient)[i], g0[i], 1e-11, 1e-12);

    // Two chunks of points and a partial batch: one claim per chunk, on two threads.
    const std::size_t points = 2 * 8192 + 37;
    std::vector<std::vector<double>> xs(m, std::vector<double>(points));
    for (std::size_t i = 0; i < points; ++i)
        for (std::size_t e = 0; e < m; ++e) xs[e][i] = std::sin(0.37 * double(i) + 0.11 * double(e));
    std::vector<double> values(points), values2(points), values3(points);
    std::vector<std::vector<double>> grad(m, std::vector<double>(points)), grad2 = grad;
    k.gradient_batch(std::tuple{gradc::broadcast(a), xs}, values, grad);
    k.gradient_batch(std::tuple{gradc::broadcast(a), xs}, values2, grad2, gradc::threads{2});
    k.value_batch(std::tuple{gradc::broadcast(a), xs}, values3, gradc::threads{2});
    CHECK(values2 == values);
    CHECK(grad2 == grad);
    double sum_f = 0;
    std::vector<double> sum_g(m);
    for (std::size_t i = 0; i < points; ++i) {
        std::vector<double> xi(m), gi;
        for (std::size_t e = 0; e < m; ++e) xi[e] = xs[e][i];
        const double fi = outer_value(a, xi, gi);
        sum_f += fi;
        for (std::size_t e = 0; e < m; ++e) sum_g[e] += gi[e];
        if (i % 997 != 0 && i + 5 < points) continue;
        INFO("point " << i);
        close(values[i], fi, 1e-12, 1e-12);
        close(values3[i], fi, 1e-12, 1e-12);
        for (std::size_t e = 0; e < m; ++e) close(grad[e][i], gi[e], 1e-11, 1e-12);
    }

    // Map-reduce: outer(a, a) computed once in the calling thread's slab, leaves in theirs.
    const auto mr = k.map_reduce(xs, a);
    const auto mr2 = k.map_reduce(xs, a, gradc::threads{2});
    close(mr.value, sum_f, 1e-10, 1e-10);
    for (std::size_t e = 0; e < m; ++e) close(std::get<0>(mr.gradient)[e], sum_g[e], 1e-10, 1e-10);
    CHECK(mr2.value == mr.value);
    CHECK(std::get<0>(mr2.gradient) == std::get<0>(mr.gradient));
    CHECK(k.map_reduce_value(xs, a, gradc::threads{2}) == mr.value);

    // H·v on duals of doubles (the widest entry a slab is planned for) against central
    // differences of the gradient.
    const auto v = vector_at(3, -1, 1);
    const auto h = k.hvp(std::tie(a, x0), std::tie(v));
    close(h.value, f0, 1e-12, 1e-12);
    std::vector<double> ap(a), am(a), gp, gm;
    for (std::size_t i = 0; i < m; ++i) {
        ap[i] += 1e-5 * v[i];
        am[i] -= 1e-5 * v[i];
    }
    outer_value(ap, x0, gp);
    outer_value(am, x0, gm);
    for (std::size_t i = 0; i < m; ++i) close(std::get<0>(h.hvp)[i], (gp[i] - gm[i]) / 2e-5, 1e-6, 1e-7);
}

TEST_CASE("several threads call one workspace kernel at once", "[arrays][workspace]") {
    const auto k = product_kernel();
    // More threads than slabs: some calls find every slab taken and allocate their own.
    const std::size_t threads = k.workspace_slabs() + 3;
    std::vector<std::vector<double>> As, Bs;
    std::vector<double> expected;
    for (std::size_t t = 0; t < threads; ++t) {
        As.push_back(matrix(10 + t, 0.2));
        Bs.push_back(matrix(20 + t, 0.2));
        expected.push_back(k(As[t], Bs[t]));
    }
    std::atomic<int> wrong{0};
    std::vector<std::thread> pool;
    for (std::size_t t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            const auto reference = k.gradient(As[t], Bs[t]);
            for (int repeat = 0; repeat < 6; ++repeat) {
                const auto r = k.gradient(As[t], Bs[t]);
                if (r.value != reference.value || r.gradient != reference.gradient) ++wrong;
                if (k(As[t], Bs[t]) != expected[t]) ++wrong;
            }
        });
    for (auto& th : pool) th.join();
    CHECK(wrong == 0);
    const product_closed_form c(As[1], Bs[1], As[2], Bs[2]);
    check_product(k.gradient(As[1], Bs[1]), c);
}

TEST_CASE("every slab taken: a call allocates its own arrays", "[arrays][workspace]") {
    const auto k = product_kernel();
    using K = product_kernel_t;
    std::vector<std::unique_ptr<gradc::lower::workspace_lease>> held;
    for (std::size_t i = 0; i < k.workspace_slabs(); ++i) {
        held.push_back(std::make_unique<gradc::lower::workspace_lease>(k.lease()));
        held.back()->get(K::workspace_slab_bytes);
    }
    const auto A = matrix(5, 0.2), B = matrix(6, 0.2);
    long before = allocations.load();
    const auto busy = k.gradient(A, B);
    if (counting) CHECK(allocations.load() - before == 1);  // the call's own block, freed on return
    held.clear();
    before = allocations.load();
    const auto free = k.gradient(A, B);
    if (counting) CHECK(allocations.load() - before == 0);
    CHECK(busy.value == free.value);
    CHECK(busy.gradient == free.gradient);
}

TEST_CASE("workspace kernels allocate when created, not when called", "[arrays][workspace]") {
    long before = allocations.load();
    const auto k = outer_kernel();
    // The slabs and their flags; AddressSanitizer's runtime serves the flags' operator
    // new[] itself, without calling the counting operator new.
    if (counting) CHECK(allocations.load() - before >= 1);
    CHECK(allocations.load() - before <= 2);
    const auto a = vector_at(1, -0.5, 0.5), x = vector_at(2, -1, 1), v = vector_at(3, -1, 1);
    constexpr std::size_t points = 37;
    std::vector<std::vector<double>> xs(m, std::vector<double>(points, 0.5)), grad(m, std::vector<double>(points));
    std::vector<double> values(points);
    const auto in = std::tuple{gradc::broadcast(a), xs};  // copies xs: before counting
    double sink = 0;
    before = allocations.load();
    for (int i = 0; i < 3; ++i) {
        sink += k(a, x);
        sink += std::get<0>(k.gradient(a, x).gradient)[1];
        sink += k.jvp(std::tie(a, x), std::tie(v)).tangent;
        sink += std::get<0>(k.vjp(std::tie(a, x), 1.5).gradient)[2];
        sink += std::get<0>(k.hvp(std::tie(a, x), std::tie(v)).hvp)[3];
        k.gradient_batch(in, values, grad, gradc::threads{1});
        sink += k.map_reduce(xs, a, gradc::threads{1}).value + values[5];
    }
    CHECK(allocations.load() - before == 0);  // 0 - 0 without counting
    CHECK(sink != 0);
}

TEST_CASE("a copied workspace kernel works after the original is gone", "[arrays][workspace]") {
    using K = product_kernel_t;
    auto original = std::make_unique<K>(product_kernel());
    const auto A = matrix(7, 0.2), B = matrix(8, 0.2);
    const auto before = original->gradient(A, B);
    K copy = *original;
    CHECK(copy.workspace_slabs() == original->workspace_slabs());
    K moved = std::move(*original);  // the moved-from kernel keeps working, allocating per call
    CHECK(original->gradient(A, B).gradient == before.gradient);
    original.reset();
    const auto after = copy.gradient(A, B);
    CHECK(after.value == before.value);
    CHECK(after.gradient == before.gradient);
    CHECK(moved.gradient(A, B).gradient == before.gradient);
    copy = moved;
    CHECK(copy(A, B) == before.value);
}
