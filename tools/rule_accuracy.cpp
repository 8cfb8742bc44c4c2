/// Measures the accuracy of every rule of the table, in units in the last place: each
/// rule's value and partials on double and float, as scalars and as SIMD batches (the
/// default architecture), against the same rule evaluated in long double (64-bit
/// significand, 11 bits more than double). Points are drawn inside each rule's test
/// domain, spread over magnitudes from 1e-12 to ~300 and towards the domain's edges;
/// points where the long-double result is not a finite normal number of the lane type
/// are skipped. Prints a Markdown table (docs/reliability.md, "Accuracy of the rules").
///
///     build/tools/rule_accuracy [points per rule, default 20000] [seed, default 1]

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <string_view>

#include <boost/hana/for_each.hpp>

#include <gradc/rules.hpp>
#include <gradc/simd/config.hpp>
#include <gradc/math.hpp>

GRADC_SIMD_DIAGNOSTICS_PUSH

namespace {

using long_double = long double;

/// One operand drawn inside the open interval (lo, hi): magnitudes spread over powers of
/// ten, and points close to a finite edge.
double draw(std::mt19937_64& rng, gradc::rules::interval d) {
    std::uniform_real_distribution<double> u(0, 1);
    for (;;) {
        const double r = u(rng);
        double x;
        if (r < 0.5) {
            x = std::pow(10.0, -12 + 14.5 * u(rng)) * (u(rng) < 0.5 ? -1 : 1);
        } else if (r < 0.75 && std::isfinite(d.lo)) {
            x = d.lo + std::pow(10.0, -15 + 16 * u(rng));
        } else if (std::isfinite(d.hi)) {
            x = d.hi - std::pow(10.0, -15 + 16 * u(rng));
        } else {
            x = std::pow(10.0, -12 + 14.5 * u(rng));
        }
        if (x > d.lo && x < d.hi) return x;
    }
}

/// Error of `value` in units in the last place of T at the reference, or -1 when the
/// reference is not a finite normal T.
template <class T>
double ulps(T value, long_double reference) {
    const long_double m = std::fabs(reference);
    if (!std::isfinite(m) || m < std::numeric_limits<T>::min() || m > std::numeric_limits<T>::max()) return -1;
    const T rounded = static_cast<T>(m);
    const long_double ulp = long_double(std::nextafter(rounded, std::numeric_limits<T>::infinity())) - rounded;
    if (!std::isfinite(value)) return std::numeric_limits<double>::infinity();
    return double(std::fabs(long_double(value) - reference) / ulp);
}

/// The largest errors seen, of the value and of any partial.
struct worst {
    double value = 0;
    double partial = 0;
};

/// The rule's value and partials at one point, in value type V (a scalar or a batch whose
/// lanes all hold the point); lane 0 is read back as T.
template <class R, class V, std::size_t N>
std::array<long_double, 1 + N> evaluate(const std::array<long_double, N>& point) {
    using K = gradc::rules::scalar_t<V>;
    std::array<V, N> x;
    for (std::size_t i = 0; i < N; ++i) x[i] = V(K(point[i]));
    const auto lane0 = [](const V& v) -> long_double {
        if constexpr (std::is_arithmetic_v<V>) return v;
        else return v.get(0);
    };
    std::array<long_double, 1 + N> r;
    const V y = std::apply([](const auto&... a) { return R::eval(a...); }, x);
    r[0] = lane0(y);
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        // scale(p, 1) turns the structural partials (one, gates) into values.
        ((r[1 + I] = lane0(std::apply(
              [&](const auto&... a) { return gradc::rules::scale(R::partial(gradc::rules::arg<I>, a..., y), V(K(1))); },
              x))),
         ...);
    }(std::make_index_sequence<N>{});
    return r;
}

template <class R, class T, std::size_t N>
void measure(const std::array<long_double, N>& point, worst& scalar, worst& batch) {
    std::array<long_double, N> rounded;
    for (std::size_t i = 0; i < N; ++i) rounded[i] = static_cast<T>(point[i]);
    const auto ref = evaluate<R, long_double>(rounded);
    const auto s = evaluate<R, T>(rounded);
    const auto b = evaluate<R, xsimd::batch<T>>(rounded);
    for (std::size_t k = 0; k <= N; ++k) {
        const double es = ulps<T>(static_cast<T>(s[k]), ref[k]);
        const double eb = ulps<T>(static_cast<T>(b[k]), ref[k]);
        if (es < 0) continue;
        double& s_worst = k == 0 ? scalar.value : scalar.partial;
        double& b_worst = k == 0 ? batch.value : batch.partial;
        s_worst = std::max(s_worst, es);
        b_worst = std::max(b_worst, eb);
    }
}

std::string cell(double e) {
    char buf[32];
    if (std::isinf(e)) return "inf";
    std::snprintf(buf, sizeof buf, e < 10 ? "%.1f" : "%.0f", e);
    return buf;
}

}  // namespace

int main(int argc, char** argv) {
    const int count = argc > 1 ? std::atoi(argv[1]) : 20000;
    const unsigned seed = argc > 2 ? unsigned(std::atoi(argv[2])) : 1;
    std::printf("| rule | double value: scalar / batch | double partials: scalar / batch | float value: scalar / batch | float partials: scalar / batch |\n");
    std::printf("|---|---|---|---|---|\n");
    boost::hana::for_each(gradc::rules::all, [&](auto t) {
        using R = typename decltype(t)::type;
        if constexpr (R::arity <= 2) {
            std::mt19937_64 rng(seed);
            const auto d = gradc::rules::domain_interval(R::domain);
            worst ds, db, fs, fb;
            for (int i = 0; i < count; ++i) {
                std::array<long_double, R::arity> p;
                for (auto& x : p) x = draw(rng, d);
                measure<R, double>(p, ds, db);
                measure<R, float>(p, fs, fb);
            }
            std::printf("| %s | %s / %s | %s / %s | %s / %s | %s / %s |\n", std::string(R::name).c_str(),
                        cell(ds.value).c_str(), cell(db.value).c_str(), cell(ds.partial).c_str(), cell(db.partial).c_str(),
                        cell(fs.value).c_str(), cell(fb.value).c_str(), cell(fs.partial).c_str(), cell(fb.partial).c_str());
        }
    });
}

GRADC_SIMD_DIAGNOSTICS_POP
