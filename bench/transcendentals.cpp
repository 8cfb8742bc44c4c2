/// The transcendental functions the kernels call, each compiled alone for the build
/// machine's widest double batch, so that bench/flop_costs.sh can count the flops in
/// their code (docs/benchmarks.md, "Every size, and the machine's limits": the flop side
/// of the roofline). Never run.
#include <xsimd/xsimd.hpp>

using batch = xsimd::batch<double>;

extern "C" {
[[gnu::noinline]] batch cost_sin(batch x) { return xsimd::sin(x); }
[[gnu::noinline]] batch cost_cos(batch x) { return xsimd::cos(x); }
[[gnu::noinline]] batch cost_exp(batch x) { return xsimd::exp(x); }
[[gnu::noinline]] batch cost_log(batch x) { return xsimd::log(x); }
[[gnu::noinline]] batch cost_erfc(batch x) { return xsimd::erfc(x); }
[[gnu::noinline]] batch cost_tanh(batch x) { return xsimd::tanh(x); }
[[gnu::noinline]] batch cost_cosh(batch x) { return xsimd::cosh(x); }
}
