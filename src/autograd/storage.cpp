#include <cstdlib>
#include <cstring>
#include <new>

#include <gradc/autograd/storage.hpp>

namespace gradc {

// 64-byte alignment lets SIMD loads of any width start on a cache line.
Storage::Storage(std::size_t nbytes, bool zero) : small_{}, nbytes_(nbytes) {
    if (nbytes <= kSmall) return;  // small_ is zero-initialised
    const std::size_t rounded = (nbytes + 63) / 64 * 64;
    auto* p = static_cast<std::byte*>(std::aligned_alloc(64, rounded == 0 ? 64 : rounded));
    if (!p) throw std::bad_alloc();
    if (zero) std::memset(p, 0, rounded == 0 ? 64 : rounded);
    data_.reset(p);
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
