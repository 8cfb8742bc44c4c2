#pragma once
/// \file
/// Where a kernel with run-time extents keeps its nodes' values and derivatives. Their
/// size is known only when it is called, so the kernel owns slabs that grow: a call
/// claims a free slab with an atomic flag (as lower/array_workspace.hpp's pool does),
/// enlarges it if the call's extents need more than it holds, and releases it on
/// return. After the first call with given extents, calls allocate nothing; calls on
/// one kernel object may run on any number of threads at once (each on its own slab, or
/// on a block of its own when every slab is taken): docs/static.md, "Allocation".

#include <atomic>
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>

#include <gradc/lower/array_workspace.hpp>

namespace gradc::lower {

/// \cond INTERNAL

/// Slabs that grow to the largest call made on them.
class growing_workspace {
public:
    growing_workspace() : count_(workspace_pool::default_slabs()), slabs_(new slab[count_]) {}
    /// A copy starts with empty slabs of its own (the contents live only during a call).
    growing_workspace(const growing_workspace&) : growing_workspace() {}
    growing_workspace(growing_workspace&& o) noexcept : count_(o.count_), slabs_(std::move(o.slabs_)) { o.count_ = 0; }
    growing_workspace& operator=(const growing_workspace&) { return *this; }
    growing_workspace& operator=(growing_workspace&& o) noexcept {
        if (this != &o) {
            count_ = o.count_;
            slabs_ = std::move(o.slabs_);
            o.count_ = 0;
        }
        return *this;
    }

    struct alignas(workspace_alignment) slab {
        std::atomic<bool> busy{false};
        std::byte* memory = nullptr;
        std::size_t bytes = 0;
        ~slab() {
            if (memory != nullptr) ::operator delete(memory, std::align_val_t{workspace_alignment});
        }
        /// At least `n` bytes, keeping the slab's block when it is large enough.
        std::byte* hold(std::size_t n) {
            if (n > bytes) {
                if (memory != nullptr) ::operator delete(memory, std::align_val_t{workspace_alignment});
                memory = nullptr;
                memory = static_cast<std::byte*>(::operator new(n, std::align_val_t{workspace_alignment}));
                bytes = n;
            }
            return memory;
        }
    };

    /// A free slab, now taken, or null when every slab is taken.
    slab* claim() const {
        for (std::size_t i = 0; i < count_; ++i) {
            std::atomic<bool>& busy = slabs_[i].busy;
            if (!busy.load(std::memory_order_relaxed) && !busy.exchange(true, std::memory_order_acquire))
                return &slabs_[i];
        }
        return nullptr;
    }
    static void release(slab* s) { s->busy.store(false, std::memory_order_release); }

private:
    std::size_t count_;
    std::unique_ptr<slab[]> slabs_;
};

/// One call's storage: a slab of the kernel's, or a block of its own.
class growing_lease {
public:
    explicit growing_lease(const growing_workspace& w) : slab_(w.claim()) {}
    growing_lease(const growing_lease&) = delete;
    growing_lease& operator=(const growing_lease&) = delete;
    ~growing_lease() {
        if (slab_ != nullptr) growing_workspace::release(slab_);
        if (own_ != nullptr) ::operator delete(own_, std::align_val_t{workspace_alignment});
    }
    std::byte* get(std::size_t bytes) {
        if (slab_ != nullptr) return slab_->hold(bytes);
        own_ = static_cast<std::byte*>(::operator new(bytes, std::align_val_t{workspace_alignment}));
        return own_;
    }

private:
    growing_workspace::slab* slab_;
    std::byte* own_ = nullptr;
};

/// The values (and, with Derivatives, derivatives) of one call on T with V and D entries.
template <class T, bool Derivatives>
class run_time_storage {
public:
    run_time_storage(growing_lease& lease, std::size_t v, std::size_t d) : v_count_(v), d_count_(Derivatives ? d : 0) {
        static_assert(alignof(T) <= workspace_alignment, "gradc: a value type aligned beyond 64 bytes");
        const std::size_t vb = round_to_alignment((v == 0 ? 1 : v) * sizeof(T));
        std::byte* p = lease.get(vb + round_to_alignment((d_count_ == 0 ? 1 : d_count_) * sizeof(T)));
        std::uninitialized_default_construct_n(reinterpret_cast<T*>(p), v_count_);
        v_ = std::launder(reinterpret_cast<T*>(p));
        std::uninitialized_default_construct_n(reinterpret_cast<T*>(p + vb), d_count_);
        d_ = std::launder(reinterpret_cast<T*>(p + vb));
    }
    run_time_storage(const run_time_storage&) = delete;
    run_time_storage& operator=(const run_time_storage&) = delete;
    ~run_time_storage() {
        if constexpr (!std::is_trivially_destructible_v<T>) {
            std::destroy_n(v_, v_count_);
            std::destroy_n(d_, d_count_);
        }
    }
    T* values() { return v_; }
    T* derivatives() { return d_; }

private:
    std::size_t v_count_, d_count_;
    T* v_;
    T* d_;
};

/// \endcond

}  // namespace gradc::lower
