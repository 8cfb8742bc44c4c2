#pragma once
/// \file
/// What every hook registration of the dynamic mode returns.

#include <functional>
#include <utility>

namespace gradc::autograd {

/// Returned by every hook registration; `remove()` unregisters the hook (a no-op the
/// second time, or once the tensor or node it was registered on is gone).
class RemovableHandle {
public:
    RemovableHandle() = default;
    /// A handle whose remove() calls `remover` once.
    explicit RemovableHandle(std::function<void()> remover, unsigned position = 0)
        : remover_(std::move(remover)), position_(position) {}
    /// Removes the hook (once; later calls do nothing).
    void remove() {
        if (auto r = std::move(remover_)) {
            remover_ = nullptr;
            r();
        }
    }
    /// A tensor hook's position among the hooks registered on its tensor, for LibTorch
    /// code that keeps `unsigned pos = x.register_hook(...)` and calls `x.remove_hook(pos)`.
    operator unsigned() const { return position_; }  // NOLINT: implicit, as LibTorch's return type

private:
    std::function<void()> remover_;
    unsigned position_ = 0;
};

}  // namespace gradc::autograd
