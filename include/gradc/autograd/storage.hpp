#pragma once
/// The memory behind tensors, and the version counter that views share with their base.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace gradc {

/// A 64-byte aligned byte buffer shared by a tensor and its views; zero-filled unless the
/// creator is about to overwrite every byte.
class Storage {
public:
    explicit Storage(std::size_t nbytes, bool zero = true);
    Storage(const Storage&) = delete;
    Storage& operator=(const Storage&) = delete;
    std::byte* data() const { return data_ ? data_.get() : const_cast<std::byte*>(small_); }
    std::size_t nbytes() const { return nbytes_; }

private:
    struct Free {
        void operator()(std::byte* p) const;
    };
    // Scalars and tiny tensors live inside the Storage object itself: one allocation less
    // per tensor, which is most of the cost of an operation on one element.
    static constexpr std::size_t kSmall = 64;
    alignas(64) std::byte small_[kSmall];
    std::unique_ptr<std::byte[], Free> data_;
    std::size_t nbytes_;
};

/// Counts the in-place modifications of a storage. Shared by a tensor, its views and
/// its `detach()`ed aliases, so that a tensor saved for backward notices any of them.
struct VersionCounter {
    std::atomic<std::uint32_t> version{0};
    std::uint32_t current() const { return version.load(std::memory_order_relaxed); }
    void bump() { version.fetch_add(1, std::memory_order_relaxed); }
};

}  // namespace gradc
