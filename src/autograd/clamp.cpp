// clamp: min(max(a, lo), hi) with PyTorch's gradient convention at the bounds.
#include <cmath>

#include <gradc/autograd/chain.hpp>
#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/function.hpp>

#include "elementwise.hpp"

namespace gradc {

Tensor clamp(const Tensor& a, std::optional<double> lo, std::optional<double> hi) {
    detail::check_defined(a, "clamp");
    if (!lo && !hi) throw Error("gradc: clamp: at least one of min and max must be given");
    if (a.is_complex()) throw Error("gradc: clamp is not defined for complex tensors, got " + detail::describe(a));
    const ScalarType dt = kernels::float_type(a.dtype());
    Tensor src = detail::contiguous_as(a, dt);
    Tensor y = uninitialized_tensor(a.sizes(), dt);
    dispatch_floating(dt, "clamp", [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (!kernels::is_complex_v<T>) {
            const T* p = static_cast<const T*>(src.raw_data());
            T* q = static_cast<T*>(y.raw_data());
            const T l = lo ? T(*lo) : T(0), h = hi ? T(*hi) : T(0);
            for (std::int64_t i = 0; i < src.numel(); ++i) {
                T v = p[i];
                if (lo && v < l) v = l;  // NaN stays NaN: comparisons with NaN are false
                if (hi && v > h) v = h;
                q[i] = v;
            }
        }
    });
    if (!autograd::should_record({&a})) return y;
    // Derivative 1 on [lo, hi] including the bounds, as PyTorch (backward and JVP alike).
    auto inside = [lo, hi](const Tensor& x) {
        Tensor in = lo ? (x >= *lo) : (x == x);
        return hi ? in & (x <= *hi) : in;
    };
    return autograd::record_single_output("clamp", {a}, y, {a}, [inside](const tensor_list& g, const autograd::BackwardContext& ctx) -> tensor_list {
        return {autograd::chain(rules::gate{inside(ctx.saved[0])}, g[0])};
    }, [inside](const tensor_list& t, const autograd::ForwardContext& ctx) -> tensor_list {
        return {rules::scale(rules::gate{inside(ctx.inputs[0])}, t[0])};
    });
}

Tensor clamp_min(const Tensor& a, double lo) { return clamp(a, lo, std::nullopt); }
Tensor clamp_max(const Tensor& a, double hi) { return clamp(a, std::nullopt, hi); }

}  // namespace gradc
