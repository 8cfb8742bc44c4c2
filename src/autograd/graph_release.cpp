// Freeing a backward graph without recursion (Node::defer_release): a chain of a million
// operations freed node by node in place would recurse a million levels deep.
#include <cstdlib>
#include <exception>
#include <memory>
#include <new>

#include <gradc/autograd/node.hpp>

namespace gradc::autograd {

namespace {

// Trivially destructible, so that a graph freed while static objects are destroyed (after
// this thread's thread_local objects) still finds it usable; its buffer is freed whenever
// the queue runs empty.
struct ReleaseQueue {
    bool draining;
    std::shared_ptr<void>* items;
    std::size_t size;
    std::size_t capacity;
};
thread_local ReleaseQueue release_queue{false, nullptr, 0, 0};

void drain_release_queue() noexcept {
    ReleaseQueue& q = release_queue;
    while (q.size > 0) {
        // Moved out first: freeing it may push more.
        std::shared_ptr<void> last = std::move(q.items[--q.size]);
        std::destroy_at(q.items + q.size);
    }
    std::free(q.items);
    q.items = nullptr;
    q.capacity = 0;
    q.draining = false;
}

}  // namespace

void Node::defer_release(std::shared_ptr<void> owner) noexcept {
    if (!owner) return;
    ReleaseQueue& q = release_queue;
    if (q.size == q.capacity) {
        const std::size_t capacity = q.capacity ? 2 * q.capacity : 64;
        auto* grown = static_cast<std::shared_ptr<void>*>(std::malloc(capacity * sizeof(std::shared_ptr<void>)));
        if (!grown) std::terminate();  // out of memory inside a destructor
        std::uninitialized_move(q.items, q.items + q.size, grown);
        std::destroy(q.items, q.items + q.size);
        std::free(q.items);
        q.items = grown;
        q.capacity = capacity;
    }
    ::new (static_cast<void*>(q.items + q.size)) std::shared_ptr<void>(std::move(owner));
    ++q.size;
}

void Node::begin_release() noexcept {
    if (release_queue.draining) return;
    release_queue.draining = true;
    drains_release_queue_ = true;
}

Node::~Node() {
    begin_release();
    for (auto& e : next_edges_) defer_release(std::move(e.function));
    if (drains_release_queue_) drain_release_queue();
}

}  // namespace gradc::autograd
