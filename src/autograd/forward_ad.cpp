// Dual levels and where tangents live (forward_ad.hpp). A tangent is stored in its
// tensor's AutogradMeta with the id of the level that made it; it counts only while
// that level is the active one. The level remembers which tensors it gave a tangent
// and drops those tangents when it ends, so their memory goes with it.
#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/forward_ad.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/tensor_impl.hpp>
#include <gradc/autograd/view.hpp>

#include "forward_grad.hpp"
#include "internal.hpp"

namespace gradc::autograd::forward_ad {

namespace {

// One level at a time in the process, as in PyTorch: the level is global, the
// "ignore tangents" scopes are per thread.
std::mutex levels_mutex;
std::atomic<std::uint64_t> current_level{0};
std::uint64_t last_level = 0;                        // under levels_mutex
std::vector<std::weak_ptr<TensorImpl>> given;        // under levels_mutex
std::size_t compact_at = 1024;                       // under levels_mutex
thread_local int ignore_depth = 0;
thread_local bool force_fallback = false;

void remember(const std::shared_ptr<TensorImpl>& impl) {
    std::lock_guard<std::mutex> lock(levels_mutex);
    if (given.size() >= compact_at) {
        // A long level makes many short-lived tensors: forget the dead ones.
        std::erase_if(given, [](const std::weak_ptr<TensorImpl>& w) { return w.expired(); });
        compact_at = std::max<std::size_t>(1024, 2 * given.size());
    }
    given.push_back(impl);
}

void store(const Tensor& t, Tensor tangent, std::uint64_t level) {
    AutogradMeta& meta = t.unsafeGetTensorImpl()->meta();
    meta.fw_grad = std::move(tangent);
    meta.fw_level = level;
    remember(t.impl());
}

bool same_layout(const Tensor& a, const Tensor& b) {
    const TensorImpl& x = *a.unsafeGetTensorImpl();
    const TensorImpl& y = *b.unsafeGetTensorImpl();
    return x.dtype == y.dtype && x.sizes == y.sizes && x.strides == y.strides && x.offset == y.offset &&
           x.storage->nbytes() == y.storage->nbytes();
}

// `tangent` in t's memory layout: itself when it already is, else a copy into a new
// storage the size of t's, so that views of t and of its tangent correspond.
Tensor conform(const Tensor& t, const Tensor& tangent) {
    if (same_layout(t, tangent)) return tangent;
    const TensorImpl& p = *t.unsafeGetTensorImpl();
    auto [storage, version] = make_storage(p.storage->nbytes());
    Tensor out(std::make_shared<TensorImpl>(std::move(storage), std::move(version), p.dtype, p.sizes, p.strides, p.offset));
    if (GradMode::is_enabled() && tangent.requires_grad()) {
        detail::IgnoreTangents hide;
        out.copy_(tangent);
    } else {
        gradc::detail::copy_into(out, tangent);
    }
    return out;
}

// A view's tangent from its base's: the view's geometry over the base tangent's storage
// (the base tangent has the base's layout).
Tensor view_of_tangent(const Tensor& base_tangent, const TensorImpl& view) {
    detail::IgnoreTangents hide;
    if (GradMode::is_enabled() && base_tangent.requires_grad() && base_tangent.is_contiguous())
        return as_strided(base_tangent, view.sizes, view.strides, view.offset);
    return gradc::detail::make_view(base_tangent, view.sizes, view.strides, view.offset);
}

void check_level(const char* op, const Tensor& t) {
    if (current_level.load(std::memory_order_acquire) == 0)
        throw Error(std::string("gradc: ") + op + ": trying to create a dual tensor for forward AD but no dual level is active (got " +
                    gradc::detail::describe(t) + "); create a forward_ad::dual_level scope first.");
}

}  // namespace

// ---- levels ---------------------------------------------------------------------------

dual_level::dual_level() {
    std::lock_guard<std::mutex> lock(levels_mutex);
    if (current_level.load(std::memory_order_relaxed) != 0)
        throw Error("gradc: forward_ad::dual_level: nested forward-mode AD is not supported: a dual level is already "
                    "active (one level at a time, as in PyTorch); end the current dual_level scope before creating "
                    "another.");
    id_ = ++last_level;
    given.clear();
    current_level.store(id_, std::memory_order_release);
}

dual_level::~dual_level() {
    std::vector<std::weak_ptr<TensorImpl>> mine;
    {
        std::lock_guard<std::mutex> lock(levels_mutex);
        mine.swap(given);
        compact_at = 1024;
        current_level.store(0, std::memory_order_release);
    }
    for (const auto& w : mine) {
        auto impl = w.lock();
        if (!impl || !impl->autograd || impl->autograd->fw_level != id_) continue;
        impl->autograd->fw_grad = Tensor();
        impl->autograd->fw_level = 0;
    }
}

bool is_level_active() { return current_level.load(std::memory_order_acquire) != 0; }

namespace detail {

IgnoreTangents::IgnoreTangents() { ++ignore_depth; }
IgnoreTangents::~IgnoreTangents() { --ignore_depth; }

ForceFallback::ForceFallback() : previous_(force_fallback) { force_fallback = true; }
ForceFallback::~ForceFallback() { force_fallback = previous_; }
bool fallback_forced() { return force_fallback; }

std::uint64_t active_level() { return current_level.load(std::memory_order_acquire); }

// ---- tangents of tensors -------------------------------------------------------------

Tensor tangent_of(const Tensor& t) {
    const std::uint64_t level = current_level.load(std::memory_order_acquire);
    if (level == 0 || ignore_depth > 0 || !t.defined()) return Tensor();
    TensorImpl* impl = t.unsafeGetTensorImpl();
    if (!impl->autograd) return Tensor();
    AutogradMeta& meta = *impl->autograd;
    if (meta.fw_grad.defined() && meta.fw_level == level) return meta.fw_grad;
    if (!meta.base.defined()) return Tensor();
    // A view made before its base got a tangent (by an in-place operation).
    const Tensor base_tangent = tangent_of(meta.base);
    if (!base_tangent.defined()) return Tensor();
    Tensor view_tangent = view_of_tangent(base_tangent, *impl);
    store(t, view_tangent, level);
    return view_tangent;
}

bool any_tangent(TensorRefs tensors) {
    if (current_level.load(std::memory_order_relaxed) == 0 || ignore_depth > 0) return false;
    return std::any_of(tensors.begin(), tensors.end(), [](const Tensor& t) { return tangent_of(t).defined(); });
}

bool any_tangent(std::initializer_list<const Tensor*> tensors) {
    if (current_level.load(std::memory_order_relaxed) == 0 || ignore_depth > 0) return false;
    return std::any_of(tensors.begin(), tensors.end(), [](const Tensor* t) { return tangent_of(*t).defined(); });
}

void set_tangent(const Tensor& t, const Tensor& tangent) {
    const std::uint64_t level = current_level.load(std::memory_order_acquire);
    if (level == 0) return;
    store(t, conform(t, tangent), level);
}

void restore_saved(const Tensor& t, const Tensor& tangent, std::uint64_t level) {
    if (level == 0 || level != current_level.load(std::memory_order_acquire)) return;
    const auto& meta = t.unsafeGetTensorImpl()->autograd;
    if (meta && meta->fw_grad.defined() && meta->fw_level == level) return;
    store(t, tangent, level);
}

void assign_inplace(const Tensor& self, const Tensor& tangent) {
    Tensor old = tangent_of(self);
    if (!old.defined() && !tangent.defined()) return;
    if (!old.defined() && self.is_view()) {
        // The base gets a zero tangent so that the view's region can be written into it.
        const Tensor& base = self._base();
        set_tangent(base, zeros_like(base));
        old = tangent_of(self);
    }
    IgnoreTangents hide;
    Tensor value = tangent.defined() ? tangent : zeros_like(self);
    if (value.dtype() != self.dtype()) value = value.to(self.dtype());
    if (!old.defined()) {
        set_tangent(self, value.sizes() == self.sizes() ? value : expand(value, self.sizes()));
        return;
    }
    const bool differentiable = GradMode::is_enabled() && (value.requires_grad() || old.requires_grad());
    if (!differentiable) {
        gradc::detail::copy_into(old, value);
        old.unsafeGetTensorImpl()->version->bump();
        return;
    }
    // A leaf tangent that requires grad cannot be written in place while recording: the
    // tensor gets the new tangent instead (views of it keep the old one).
    const bool frozen_leaf = old.is_leaf() && old.requires_grad() && !old.is_view();
    const bool frozen_view = old.is_view() && old._base().is_leaf() && old._base().requires_grad();
    if (frozen_leaf || frozen_view) {
        set_tangent(self, value.sizes() == self.sizes() ? value : expand(value, self.sizes()));
        return;
    }
    Tensor target = old;
    target.copy_(value);
}

void update_inplace(const Tensor& self, const Tensor& result) {
    if (current_level.load(std::memory_order_relaxed) == 0 || ignore_depth > 0) return;
    assign_inplace(self, tangent_of(result));
}

Tensor history_alias(const Tensor& t) {
    if (!t.defined()) return t;
    Tensor a = t.detach();
    if (const auto& fn = t.grad_fn()) set_history(a, fn, t.output_nr());
    return a;
}

}  // namespace detail

// ---- dual tensors ---------------------------------------------------------------------

Tensor make_dual(const Tensor& primal, const Tensor& tangent) {
    gradc::detail::check_defined(primal, "make_dual");
    gradc::detail::check_defined(tangent, "make_dual");
    check_level("make_dual", primal);
    if (!is_differentiable_type(primal.dtype()))
        throw Error("gradc: make_dual: expected the primal to be floating point or complex, but got " +
                    gradc::detail::describe(primal));
    if (!is_differentiable_type(tangent.dtype()))
        throw Error("gradc: make_dual: expected the tangent to be floating point or complex, but got " +
                    gradc::detail::describe(tangent));
    if (tangent.sizes() != primal.sizes())
        throw Error("gradc: make_dual: the tangent has shape " + shape_string(tangent.sizes()) + " but the primal has shape " +
                    shape_string(primal.sizes()) + "; expected a tangent of the primal's shape.");
    if (tangent.dtype() != primal.dtype())
        throw Error("gradc: make_dual: the tangent has dtype " + std::string(to_string(tangent.dtype())) +
                    " but the primal has dtype " + std::string(to_string(primal.dtype())) +
                    "; expected the primal's dtype (convert it with tangent.to(primal.dtype())).");
    if (detail::tangent_of(primal).defined())
        throw Error("gradc: make_dual: the primal " + gradc::detail::describe(primal) +
                    " already has a tangent at this level; making a dual tensor of a dual tensor is not supported "
                    "(use unpack_dual(t).primal).");
    if (detail::tangent_of(tangent).defined())
        throw Error("gradc: make_dual: the tangent " + gradc::detail::describe(tangent) +
                    " has a tangent itself at this level, which is not supported (use unpack_dual(t).primal).");
    Tensor dual = alias(primal);
    detail::set_tangent(dual, tangent);
    return dual;
}

UnpackedDualTensor unpack_dual(const Tensor& tensor) {
    gradc::detail::check_defined(tensor, "unpack_dual");
    Tensor tangent = detail::tangent_of(tensor);
    if (!tangent.defined()) return {tensor, Tensor()};
    detail::IgnoreTangents hide;
    return {alias(tensor), tangent};
}

}  // namespace gradc::autograd::forward_ad
