#pragma once
/// \file
/// Where an array kernel's calls keep every node's values and adjoints. Within
/// `stack_budget` bytes (for the call's value type) they are two arrays on the stack, as
/// they always were. Beyond it a stack could overflow (a 256×256 intermediate is 512 KiB
/// per array on double, 8 times that on AVX-512 batches, against 8 MiB for a main thread
/// and less on worker threads), so such a kernel owns a workspace: a pool of slabs
/// allocated once when it is created, each large enough for one call on the widest value
/// type its calls use. A call claims a free slab with an atomic flag and releases it on
/// return (RAII), so calls on one kernel object may run on any number of threads at once.
/// docs/static.md, "How array programs run", gives the figures.
///
/// The plan depends only on the program's sizes and on fixed constants, never on the
/// architecture a file is compiled for: run-time dispatch (simd/dispatch.hpp) compiles
/// the same kernel type under several sets of flags, and its layout must not differ.

#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include <gradc/lower/array_second_order.hpp>
#include <gradc/parallel/threads.hpp>
#include <gradc/rules/dual.hpp>

namespace gradc::lower {

/// Bytes of node values and adjoints one call may keep on the stack; a kernel needing
/// more for some value type its calls use owns a workspace.
inline constexpr std::size_t stack_budget = 64 * 1024;

// The workspace's machinery: what a kernel holds and how calls claim it, never named in
// user code, left out of the API reference.
/// \cond INTERNAL

/// The widest register (AVX-512): slabs and the arrays in them start at this alignment.
inline constexpr std::size_t workspace_alignment = 64;

/// The widest entry a call may use: a batch of AVX-512 (64 bytes) or a dual number with
/// one tangent per direction of a Hessian sweep (lower/array_second_order.hpp; 72 bytes
/// on double). Wider value types (duals of long double) take a heap block per call.
inline constexpr std::size_t widest_entry = sizeof(dual_numbers::dual<double, hessian_directions>) > 64
                                                ? sizeof(dual_numbers::dual<double, hessian_directions>)
                                                : 64;

constexpr std::size_t round_to_alignment(std::size_t bytes) {
    return (bytes + workspace_alignment - 1) / workspace_alignment * workspace_alignment;
}

/// The compile-time plan of a program with V value and D derivative entries.
template <std::size_t V, std::size_t D>
struct workspace_plan {
    static constexpr std::size_t value_entries = V;  ///< Entries of the values array.
    static constexpr std::size_t derivative_entries = D;  ///< Entries of the adjoints array.
    /// Bytes a call on entries of `entry` bytes needs: values, then (if asked) adjoints.
    static constexpr std::size_t bytes(std::size_t entry, bool derivatives) {
        return round_to_alignment(V * entry) + (derivatives ? round_to_alignment(D * entry) : 0);
    }
    /// Whether a call on T keeps its arrays on the stack.
    template <class T, bool Derivatives>
    static constexpr bool on_stack = (V + (Derivatives ? D : 0)) * sizeof(T) <= stack_budget;
    /// Whether a call on the widest entry would exceed the budget: then the kernel owns slabs.
    static constexpr bool has_workspace = (V + D) * widest_entry > stack_budget;
    /// One slab: values and adjoints of one call on the widest entry.
    static constexpr std::size_t slab_bytes = has_workspace ? bytes(widest_entry, true) : 0;
};

/// Slabs of a kernel's workspace: as many as the threads a batch call can run on
/// (gradc::available_cores), plus one that map-reduce's calling thread holds for the
/// values computed once while its leaves run. Claims scan from the first slab, and a
/// large block usually comes from a fresh mapping whose pages become resident only when
/// written: a kernel called on double alone touches about a ninth of each slab it uses,
/// and slabs past the number of concurrent calls not at all.
class workspace_pool {
public:
    workspace_pool(std::size_t slab_bytes, std::size_t slabs)
        : slab_bytes_(slab_bytes),
          count_(slabs),
          memory_(static_cast<std::byte*>(::operator new(slab_bytes * slabs, std::align_val_t{workspace_alignment}))),
          flags_(new flag[slabs]) {}
    /// A copy owns its own slabs (none of the contents: they live only during a call),
    /// a full set even when copied from a pool that was moved from.
    workspace_pool(const workspace_pool& o)
        : workspace_pool(o.slab_bytes_, o.count_ == 0 ? default_slabs() : o.count_) {}
    /// A pool moved from has no slab left: calls on its kernel allocate (see workspace_lease).
    workspace_pool(workspace_pool&& o) noexcept
        : slab_bytes_(o.slab_bytes_), count_(std::exchange(o.count_, 0)), memory_(std::move(o.memory_)),
          flags_(std::move(o.flags_)) {}
    workspace_pool& operator=(const workspace_pool& o) {
        if (this != &o && (count_ == 0 || slab_bytes_ != o.slab_bytes_)) *this = workspace_pool(o);
        return *this;
    }
    workspace_pool& operator=(workspace_pool&& o) noexcept {
        if (this == &o) return *this;
        slab_bytes_ = o.slab_bytes_;
        count_ = std::exchange(o.count_, 0);
        memory_ = std::move(o.memory_);
        flags_ = std::move(o.flags_);
        return *this;
    }

    std::size_t slab_bytes() const { return slab_bytes_; }
    std::size_t slabs() const { return count_; }

    /// A free slab's index, now taken, or slabs() when every slab is taken. The acquire
    /// pairs with release's store: the previous holder's writes are done before the new
    /// holder's start.
    std::size_t claim() const {
        for (std::size_t i = 0; i < count_; ++i) {
            std::atomic<bool>& busy = flags_[i].busy;
            if (!busy.load(std::memory_order_relaxed) && !busy.exchange(true, std::memory_order_acquire)) return i;
        }
        return count_;
    }
    void release(std::size_t i) const { flags_[i].busy.store(false, std::memory_order_release); }
    std::byte* slab(std::size_t i) const { return memory_.get() + i * slab_bytes_; }

    /// The slab count of a new kernel.
    static std::size_t default_slabs() { return static_cast<std::size_t>(available_cores()) + 1; }

private:
    struct alignas(workspace_alignment) flag {  // a cache line each: claims on other slabs do not contend
        std::atomic<bool> busy{false};
    };
    struct aligned_delete {
        void operator()(std::byte* p) const { ::operator delete(p, std::align_val_t{workspace_alignment}); }
    };
    std::size_t slab_bytes_;
    std::size_t count_;
    std::unique_ptr<std::byte, aligned_delete> memory_;
    std::unique_ptr<flag[]> flags_;
};

/// What a kernel holds: slabs when its plan says so, else nothing (an empty member with
/// [[no_unique_address]]: the kernel's size is unchanged).
template <class Plan, bool = Plan::has_workspace>
struct workspace_member {
    const workspace_pool* pool() const { return nullptr; }
};
template <class Plan>
struct workspace_member<Plan, true> {
    workspace_pool slabs{Plan::slab_bytes, workspace_pool::default_slabs()};
    const workspace_pool* pool() const { return &slabs; }
};

/// One call's claim on a kernel's workspace, released when it ends. It claims lazily, at
/// the first `get`, so a call whose arrays fit the stack never touches the flags. A copy
/// starts unclaimed: the batch calls copy their per-batch function once per chunk of
/// points (simd/tail.hpp), so each chunk claims once, not each batch of points. When
/// every slab is taken (more concurrent calls than slabs) or a value type is wider than a
/// slab was planned for, the call allocates a block of its own and frees it on return.
class workspace_lease {
public:
    explicit workspace_lease(const workspace_pool* pool) noexcept : pool_(pool) {}
    workspace_lease(const workspace_lease& o) noexcept : pool_(o.pool_) {}
    workspace_lease& operator=(const workspace_lease&) = delete;
    ~workspace_lease() {
        if (memory_ != nullptr) give_back();
    }

    /// `bytes` of storage aligned to workspace_alignment, valid until the lease ends.
    std::byte* get(std::size_t bytes) {
        if (memory_ != nullptr && bytes <= size_) return memory_;
        return take(bytes);
    }

private:
    static constexpr std::size_t none = static_cast<std::size_t>(-1);

    std::byte* take(std::size_t bytes) {
        if (memory_ != nullptr) give_back();
        if (pool_ != nullptr && bytes <= pool_->slab_bytes()) {
            const std::size_t i = pool_->claim();
            if (i < pool_->slabs()) {
                slab_ = i;
                size_ = pool_->slab_bytes();
                return memory_ = pool_->slab(i);
            }
        }
        memory_ = static_cast<std::byte*>(::operator new(bytes, std::align_val_t{workspace_alignment}));
        size_ = bytes;
        return memory_;
    }
    void give_back() {
        if (slab_ != none) {
            pool_->release(slab_);
        } else {
            ::operator delete(memory_, std::align_val_t{workspace_alignment});
        }
        memory_ = nullptr;
        slab_ = none;
        size_ = 0;
    }

    const workspace_pool* pool_;
    std::byte* memory_ = nullptr;
    std::size_t slab_ = none;
    std::size_t size_ = 0;
};

/// The node values (and, with Derivatives, adjoints) of one call on T: arrays of their
/// own on the stack when the plan allows, else views of the lease's storage.
template <class Plan, class T, bool Derivatives, bool Stack = Plan::template on_stack<T, Derivatives>>
class node_storage {
    static constexpr std::size_t V = Plan::value_entries, D = Plan::derivative_entries;

public:
    explicit node_storage(workspace_lease&) {}
    T* values() { return v_.data(); }
    T* derivatives() { return d_.data(); }

private:
    std::array<T, V == 0 ? 1 : V> v_;
    std::array<T, (Derivatives && D != 0) ? D : 1> d_;
};
template <class Plan, class T, bool Derivatives>
class node_storage<Plan, T, Derivatives, false> {
    static constexpr std::size_t V = Plan::value_entries, D = Plan::derivative_entries;

public:
    explicit node_storage(workspace_lease& lease) {
        std::byte* p = lease.get(Plan::bytes(sizeof(T), Derivatives));
        static_assert(alignof(T) <= workspace_alignment, "gradc: a value type aligned beyond 64 bytes");
        std::uninitialized_default_construct_n(reinterpret_cast<T*>(p), V);
        v_ = std::launder(reinterpret_cast<T*>(p));
        if constexpr (Derivatives) {
            std::byte* q = p + round_to_alignment(V * sizeof(T));
            std::uninitialized_default_construct_n(reinterpret_cast<T*>(q), D);
            d_ = std::launder(reinterpret_cast<T*>(q));
        }
    }
    node_storage(const node_storage&) = delete;
    node_storage& operator=(const node_storage&) = delete;
    ~node_storage() {
        if constexpr (!std::is_trivially_destructible_v<T>) {
            std::destroy_n(v_, V);
            if constexpr (Derivatives) std::destroy_n(d_, D);
        }
    }
    T* values() { return v_; }
    T* derivatives() { return d_; }

private:
    T* v_;
    T* d_ = nullptr;
};

/// \endcond

}  // namespace gradc::lower
