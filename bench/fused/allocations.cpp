// The interposed allocation functions (allocations.hpp). Defined in the executable, they
// take precedence over the C library's for every shared library loaded (libgradc,
// LibTorch's c10); they count and hand over to the C library's own.
#include "allocations.hpp"

#include <atomic>
#include <cstdlib>
#include <dlfcn.h>

namespace {

std::atomic<std::size_t> large_count{0}, large_bytes{0};

void note(std::size_t size) {
    if (size >= fused_bench::large_allocation) {
        large_count.fetch_add(1, std::memory_order_relaxed);
        large_bytes.fetch_add(size, std::memory_order_relaxed);
    }
}

template <class F>
F next(const char* name) {
    return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

}  // namespace

namespace fused_bench {
allocation_count large_allocations() { return {large_count.load(), large_bytes.load()}; }
}  // namespace fused_bench

extern "C" {

void* aligned_alloc(std::size_t alignment, std::size_t size) {
    static const auto real = next<void* (*)(std::size_t, std::size_t)>("aligned_alloc");
    note(size);
    return real(alignment, size);
}

int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
    static const auto real = next<int (*)(void**, std::size_t, std::size_t)>("posix_memalign");
    note(size);
    return real(out, alignment, size);
}

}  // extern "C"
