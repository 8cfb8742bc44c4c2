#pragma once
/// \file
/// The memory behind tensors, and the version counter that views share with their base.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>

namespace gradc {

/// A byte buffer shared by a tensor and its views; zero-filled unless the creator is about
/// to overwrite every byte. Buffers larger than kSmall bytes are 64-byte aligned (SIMD
/// loads of any width start on a cache line); smaller ones live inside the object,
/// 16-byte aligned, so that the object needs no over-aligned allocation.
class Storage {
public:
    explicit Storage(std::size_t nbytes, bool zero = true);
    /// Memory that gradc does not own (from_blob): `deleter(data)` runs when the last
    /// tensor on it is gone; without a deleter the caller keeps the memory alive.
    Storage(std::byte* external, std::size_t nbytes, std::function<void(void*)> deleter);
    ~Storage();
    Storage(const Storage&) = delete;
    Storage& operator=(const Storage&) = delete;
    std::byte* data() const {
        if (external_) return external_;
        return data_ ? data_.get() : const_cast<std::byte*>(small_);
    }
    std::size_t nbytes() const { return nbytes_; }

    struct Free {
        void operator()(std::byte* p) const;
    };
    // Scalars and tiny tensors live inside the Storage object itself: one allocation less
    // per tensor, which is most of the cost of an operation on one element.
    static constexpr std::size_t kSmall = 64;

private:
    alignas(16) std::byte small_[kSmall];
    std::unique_ptr<std::byte[], Free> data_;
    std::size_t nbytes_;
    std::byte* external_ = nullptr;
    std::function<void(void*)> deleter_;
};

/// Counts the in-place modifications of a storage. Shared by a tensor, its views and
/// its `detach()`ed aliases, so that a tensor saved for backward notices any of them.
struct VersionCounter {
    std::atomic<std::uint32_t> version{0};
    std::uint32_t current() const { return version.load(std::memory_order_relaxed); }
    void bump() { version.fetch_add(1, std::memory_order_relaxed); }
};

/// A fresh storage of `nbytes` and a fresh version counter. For a small buffer both are
/// one heap block (the version counter then keeps that block, not more than kSmall bytes
/// of data, alive); a large buffer's counter is separate, so that a counter kept without
/// the data (a saved tensor packed by a hook) does not hold the buffer.
std::pair<std::shared_ptr<Storage>, std::shared_ptr<VersionCounter>> make_storage(std::size_t nbytes, bool zero = true);

}  // namespace gradc
