#pragma once
// A counting operator new (plain, aligned and nothrow) for the test executables that check
// what calls allocate. The replacements are ordinary definitions: include this header in
// exactly one source file of an executable.
#include <atomic>
#include <cstdlib>
#include <new>

// ThreadSanitizer's runtime defines operator new itself (it cannot be replaced there):
// under it nothing is counted and the counts are not checked.
#if defined(__SANITIZE_THREAD__)
#define GRADC_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GRADC_TEST_TSAN 1
#endif
#endif

namespace counting_new {
inline std::atomic<long> allocations{0};
#ifdef GRADC_TEST_TSAN
inline constexpr bool counting = false;
#else
inline constexpr bool counting = true;
#endif
}  // namespace counting_new

#ifndef GRADC_TEST_TSAN
// g++ 12 sees free() of what a `new` expression returned once these are inlined, and
// warns; they are the replaced pair, malloc and free on both sides.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t size) {
    ++counting_new::allocations;
    if (void* p = std::malloc(size ? size : 1)) return p;
    throw std::bad_alloc();
}
void* operator new(std::size_t size, std::align_val_t align) {
    ++counting_new::allocations;
    const std::size_t a = static_cast<std::size_t>(align);
    if (void* p = std::aligned_alloc(a, (size + a - 1) / a * a)) return p;
    throw std::bad_alloc();
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
    ++counting_new::allocations;
    return std::malloc(size ? size : 1);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop
#endif
