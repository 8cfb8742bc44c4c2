#include <cstdlib>
#include <cstring>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <gradc/autograd/storage.hpp>

namespace gradc {

namespace {

// Buffers of at least one huge page (2 MiB on x86-64) are aligned to it and offered to
// the kernel's transparent huge pages (Linux, THP in "madvise" or "always" mode). A large
// tensor is fresh memory from the system (the C library maps it and unmaps it when
// freed), and every 4 KiB page of it is a page fault on first touch: 3-10 µs each on a
// virtual machine, so writing an 80 MB result can cost 0.2-1 s, more than computing it. One fault per 2 MiB makes it ~20× cheaper (docs/benchmarks.md,
// "Fused kernels"). Where THP is off, madvise fails harmlessly.
constexpr std::size_t kHugePage = std::size_t{2} << 20;

std::byte* allocate(std::size_t rounded) {
    if (rounded < kHugePage) return static_cast<std::byte*>(std::aligned_alloc(64, rounded));
    const std::size_t huge = (rounded + kHugePage - 1) / kHugePage * kHugePage;
    auto* p = static_cast<std::byte*>(std::aligned_alloc(kHugePage, huge));
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (p) madvise(p, huge, MADV_HUGEPAGE);
#endif
    return p;
}

}  // namespace

// 64-byte alignment lets SIMD loads of any width start on a cache line.
Storage::Storage(std::size_t nbytes, bool zero) : small_{}, nbytes_(nbytes) {
    if (nbytes <= kSmall) return;  // small_ is zero-initialised
    const std::size_t rounded = (nbytes + 63) / 64 * 64;
    auto* p = allocate(rounded == 0 ? 64 : rounded);
    if (!p) throw std::bad_alloc();
    if (zero) std::memset(p, 0, rounded == 0 ? 64 : rounded);
    data_.reset(p);
}

Storage::Storage(std::byte* external, std::size_t nbytes, std::function<void(void*)> deleter)
    : small_{}, nbytes_(nbytes), external_(external), deleter_(std::move(deleter)) {}

Storage::~Storage() {
    if (deleter_) deleter_(external_);
}

void Storage::Free::operator()(std::byte* p) const {
    std::free(p);
}

namespace {
struct SmallStorageBlock {
    explicit SmallStorageBlock(std::size_t nbytes) : storage(nbytes) {}
    Storage storage;
    VersionCounter version;
};
}  // namespace

std::pair<std::shared_ptr<Storage>, std::shared_ptr<VersionCounter>> make_storage(std::size_t nbytes, bool zero) {
    if (nbytes <= Storage::kSmall) {
        auto block = std::make_shared<SmallStorageBlock>(nbytes);
        return {std::shared_ptr<Storage>(block, &block->storage), std::shared_ptr<VersionCounter>(block, &block->version)};
    }
    return {std::make_shared<Storage>(nbytes, zero), std::make_shared<VersionCounter>()};
}

}  // namespace gradc
