#pragma once
// Counting the large allocations of a benchmark iteration: gradc's tensor storage
// (std::aligned_alloc) and LibTorch's CPU allocator (posix_memalign) are interposed by
// this executable (allocations.cpp), so every tensor buffer either library allocates is
// seen. Small allocations (graph nodes, bookkeeping) are not counted: only buffers of at
// least `large_allocation` bytes, the tensors of the formula's size.
#include <cstddef>

namespace fused_bench {

inline constexpr std::size_t large_allocation = 64 * 1024;

struct allocation_count {
    std::size_t count = 0;
    std::size_t bytes = 0;
};

/// The large allocations since the program started.
allocation_count large_allocations();

}  // namespace fused_bench
