/// Floating-point work per point of each kernel, for the flop side of the roofline: the
/// gradc gradient programs (the programs the batch calls run, on one point) and the
/// hand-written formulas, each run once on the counting scalar of flop_count.hpp.
/// Prints `kernel,implementation,arithmetic_flops,calls` with calls as `name:count`
/// pairs separated by spaces (the transcendental functions evaluated per point).
///
/// gradc's loglik is not counted: the map-reduce the benchmark times takes the loop
/// invariants (log σ, 1/σ) out of the sum and adds per block, so its per-point work is not
/// the per-point gradient program's (which would count 18 flops and a log, more than the
/// measured time allows). The hand-written loglik is the sufficient-statistics loop of hand.cpp: per point one
/// subtraction, one multiplication, one addition and one fma, 5 flops, no call.

#include <array>
#include <cstdio>
#include <string>
#include <utility>

#include "flop_count.hpp"
#include "gradc_kernels.hpp"
#include "hand_formulas.hpp"

namespace {

using bench::counted;

/// A point inside the kernel's domain: the middle of each input's range. Which branch a
/// rule takes can depend on the point (erfc's ranges); the middle is the common case.
std::array<counted, 5> middle_of(const std::string& kernel) {
    std::array<counted, 5> x{};
    for (const auto& k : bench::kernels())
        if (k.name == kernel)
            for (std::size_t j = 0; j < k.ranges.size(); ++j) x[j] = (k.ranges[j].first + k.ranges[j].second) / 2;
    return x;
}

void report(const char* kernel, const char* implementation, const bench::flop_tally& t) {
    std::string calls;
    for (const auto& [name, count] : t.calls) calls += (calls.empty() ? "" : " ") + name + ":" + std::to_string(count);
    std::printf("%s,%s,%ld,%s\n", kernel, implementation, t.arithmetic, calls.c_str());
}

/// The work of one call of `f`.
template <class F>
bench::flop_tally count(F f) {
    bench::tally() = {};
    f();
    return bench::tally();
}

template <std::size_t K, class Kernel>
void gradc_row(const char* name, const Kernel& k) {
    const auto middle = middle_of(name);
    std::array<counted, K> x;
    for (std::size_t j = 0; j < K; ++j) x[j] = middle[j];
    report(name, "gradc", count([&] { (void)k.gradient(x); }));
}

template <std::size_t K, std::size_t M>
void hand_row(const char* name, void (*formula)(const counted*, counted*)) {
    const std::array<counted, 5> x = middle_of(name);
    std::array<counted, M> y;
    report(name, "hand", count([&] { formula(x.data(), y.data()); }));
}

}  // namespace

int main() {
    using namespace bench;
    std::printf("kernel,implementation,arithmetic_flops,calls\n");
    gradc_row<2>("seed", seed_kernel());
    hand_row<2, 3>("seed", hand::seed<counted>);
    gradc_row<3>("normal_logpdf", normal_kernel());
    hand_row<3, 4>("normal_logpdf", hand::normal_logpdf<counted>);
    gradc_row<5>("black_scholes", black_scholes_kernel());
    hand_row<5, 6>("black_scholes", hand::black_scholes<counted>);
    gradc_row<4>("mlp", mlp_kernel());
    hand_row<4, 5>("mlp", hand::mlp<counted>);
    flop_tally sufficient_statistics;
    sufficient_statistics.arithmetic = 5;
    report("loglik", "hand", sufficient_statistics);
}
