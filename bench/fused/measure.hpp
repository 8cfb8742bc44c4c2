#pragma once
// The timed loop every fused-kernel benchmark shares (main.cpp for gradc, libtorch.cpp
// for LibTorch): one untimed step counting the large allocations, then Google
// Benchmark's loop; and the sizes every formula runs at.
#include <benchmark/benchmark.h>

#include "allocations.hpp"

namespace fused_bench {

/// Runs `step` (one forward + backward) once untimed, counting its large allocations (and
/// growing the heap to what it needs), then in the timed loop.
template <class Step>
void measure(benchmark::State& state, Step&& step) {
    const auto before = large_allocations();
    benchmark::DoNotOptimize(step());
    const auto after = large_allocations();
    for (auto _ : state) benchmark::DoNotOptimize(step());
    state.counters["allocs"] = double(after.count - before.count);
    state.counters["alloc_MB"] = double(after.bytes - before.bytes) / 1e6;
    state.SetItemsProcessed(state.iterations() * state.range(0));
}

inline void sizes(benchmark::internal::Benchmark* b) {
    b->Arg(1000000)->Arg(10000000)->Unit(benchmark::kMillisecond)->UseRealTime();
}

}  // namespace fused_bench
