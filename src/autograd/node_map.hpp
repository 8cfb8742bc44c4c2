#pragma once
// The engine's per-pass state of each node, looked up by the node's address several times
// per edge. An open-addressing table (linear probing, power-of-two size, at most half
// full): std::unordered_map's heap block per entry and its pointer chasing were a tenth
// of a backward pass over one-element tensors.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace gradc::detail {

template <class Key, class Value>
class AddressMap {
public:
    AddressMap() { rehash(64); }

    Value* find(const Key* key) {
        for (std::size_t i = home(key);; i = (i + 1) & mask_) {
            if (slots_[i].key == key) return &slots_[i].value;
            if (!slots_[i].key) return nullptr;
        }
    }
    bool contains(const Key* key) { return find(key) != nullptr; }
    /// The value for `key`, value-initialised when new; `second` tells whether it is new.
    /// Inserting may move every value: do not keep pointers across an insertion.
    std::pair<Value*, bool> try_emplace(Key* key) {
        if (2 * (size_ + 1) > slots_.size()) rehash(2 * slots_.size());
        for (std::size_t i = home(key);; i = (i + 1) & mask_) {
            if (slots_[i].key == key) return {&slots_[i].value, false};
            if (!slots_[i].key) {
                slots_[i].key = key;
                ++size_;
                return {&slots_[i].value, true};
            }
        }
    }
    Value& operator[](Key* key) { return *try_emplace(key).first; }
    std::size_t size() const { return size_; }

private:
    struct Slot {
        Key* key = nullptr;
        Value value{};
    };
    std::size_t home(const Key* key) const {
        // Fibonacci hashing of the address: its low bits are alignment, its high bits
        // common to every node.
        const auto x = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(key));
        return static_cast<std::size_t>((x * 0x9E3779B97F4A7C15ull) >> shift_);
    }
    void rehash(std::size_t capacity) {
        std::vector<Slot> old = std::move(slots_);
        slots_ = std::vector<Slot>(capacity);
        mask_ = capacity - 1;
        shift_ = 64;
        for (std::size_t c = capacity; c > 1; c >>= 1) --shift_;
        for (auto& s : old) {
            if (!s.key) continue;
            std::size_t i = home(s.key);
            while (slots_[i].key) i = (i + 1) & mask_;
            slots_[i].key = s.key;
            slots_[i].value = std::move(s.value);
        }
    }

    std::vector<Slot> slots_;
    std::size_t size_ = 0;
    std::size_t mask_ = 0;
    unsigned shift_ = 64;
};

}  // namespace gradc::detail
