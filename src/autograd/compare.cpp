// Comparisons (bool results, no gradient), logical connectives, and where/select.
#include <gradc/autograd/chain.hpp>
#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/function.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/reduction.hpp>

#include "elementwise.hpp"

namespace gradc {

namespace {

ScalarType compare_type(const Tensor& a, const Tensor& b) {
    const bool wa = a.unsafeGetTensorImpl()->wrapped_number, wb = b.unsafeGetTensorImpl()->wrapped_number;
    if (wa != wb) {
        const ScalarType d = wa ? b.dtype() : a.dtype();
        const ScalarType w = wa ? a.dtype() : b.dtype();
        if (is_complex(w) && !is_complex(d)) return kComplex128;
        if (is_differentiable_type(w) && !is_differentiable_type(d)) return kFloat64;
        return d;
    }
    return promote_types(a.dtype(), b.dtype());
}

// out[i] = f(a[i], b[i]) with broadcasting, in the common type of a and b.
template <class Out, class F>
Tensor compare(const Tensor& a_in, const Tensor& b_in, const char* op, ScalarType out_type, bool allow_complex, F f) {
    detail::check_defined(a_in, op);
    detail::check_defined(b_in, op);
    const ScalarType dt = compare_type(a_in, b_in);
    if (is_complex(dt) && !allow_complex)
        throw Error(std::string("gradc: ") + op + " is not defined for complex tensors, got " + detail::describe(a_in) +
                    " and " + detail::describe(b_in));
    const Shape out = broadcast_shapes(a_in.sizes(), b_in.sizes(), op);
    Tensor a = a_in.dtype() == dt ? a_in : detail::copy_as(a_in, dt);
    Tensor b = b_in.dtype() == dt ? b_in : detail::copy_as(b_in, dt);
    Tensor y = uninitialized_tensor(out, out_type);
    const Shape sa = kernels::broadcast_strides(a, out), sb = kernels::broadcast_strides(b, out);
    dispatch(dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* pa = static_cast<const T*>(a.raw_data());
        const T* pb = static_cast<const T*>(b.raw_data());
        Out* py = static_cast<Out*>(y.raw_data());
        kernels::for_each_run<3>(out, {&y.strides(), &sa, &sb}, {0, 0, 0}, [&](const kernels::Run<3>& r) {
            for (std::int64_t i = 0; i < r.count; ++i)
                py[r.offset[0] + i] = f(pa[r.offset[1] + i * r.stride[1]], pb[r.offset[2] + i * r.stride[2]]);
        });
    });
    return y;
}

template <class Rule>
Tensor compare_rule(const Tensor& a, const Tensor& b, bool allow_complex) {
    return compare<bool>(a, b, Rule::symbol.data(), kBool, allow_complex, [](const auto& x, const auto& y) -> bool {
        if constexpr (kernels::is_complex_v<std::decay_t<decltype(x)>>) {
            if constexpr (std::is_same_v<Rule, rules::equal_to>) return x == y;
            else if constexpr (std::is_same_v<Rule, rules::not_equal_to>) return x != y;
            else return false;  // excluded by allow_complex
        } else {
            return Rule::eval(x, y);
        }
    });
}

Tensor as_bool(const Tensor& t, const char* op) {
    if (t.dtype() != kBool)
        throw Error(std::string("gradc: ") + op + " expects bool tensors, got " + detail::describe(t));
    return t;
}

}  // namespace

Tensor operator<(const Tensor& a, const Tensor& b) { return compare_rule<rules::less>(a, b, false); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return compare_rule<rules::less_equal>(a, b, false); }
Tensor operator>(const Tensor& a, const Tensor& b) { return compare_rule<rules::greater>(a, b, false); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return compare_rule<rules::greater_equal>(a, b, false); }
Tensor operator==(const Tensor& a, const Tensor& b) { return compare_rule<rules::equal_to>(a, b, true); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return compare_rule<rules::not_equal_to>(a, b, true); }
Tensor operator<(const Tensor& a, double b) { return a < Tensor(b); }
Tensor operator<=(const Tensor& a, double b) { return a <= Tensor(b); }
Tensor operator>(const Tensor& a, double b) { return a > Tensor(b); }
Tensor operator>=(const Tensor& a, double b) { return a >= Tensor(b); }
Tensor operator==(const Tensor& a, double b) { return a == Tensor(b); }
Tensor operator!=(const Tensor& a, double b) { return a != Tensor(b); }

Tensor operator&(const Tensor& a, const Tensor& b) {
    return compare<bool>(as_bool(a, "&"), as_bool(b, "&"), "&", kBool, false,
                         [](const auto& x, const auto& y) -> bool { return rules::logical_and_op::eval<bool>(kernels::convert_value<bool>(x), kernels::convert_value<bool>(y)); });
}
Tensor operator|(const Tensor& a, const Tensor& b) {
    return compare<bool>(as_bool(a, "|"), as_bool(b, "|"), "|", kBool, false,
                         [](const auto& x, const auto& y) -> bool { return rules::logical_or_op::eval<bool>(kernels::convert_value<bool>(x), kernels::convert_value<bool>(y)); });
}
Tensor operator~(const Tensor& a) {
    Tensor t = as_bool(a, "~");
    return t == Tensor(scalar_tensor(0.0, dtype(kBool)));
}

Tensor isnan(const Tensor& a) {
    return compare_rule<rules::not_equal_to>(a, a, true);
}

bool all(const Tensor& a) {
    Tensor c = detail::contiguous_as(a, kBool);
    const bool* p = c.data_ptr<bool>();
    for (std::int64_t i = 0; i < c.numel(); ++i)
        if (!p[i]) return false;
    return true;
}

bool any(const Tensor& a) {
    Tensor c = detail::contiguous_as(a, kBool);
    const bool* p = c.data_ptr<bool>();
    for (std::int64_t i = 0; i < c.numel(); ++i)
        if (p[i]) return true;
    return false;
}

bool equal(const Tensor& a, const Tensor& b) {
    return a.sizes() == b.sizes() && all(a == b);
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol) {
    if (a.sizes() != b.sizes()) return false;
    NoGradGuard guard;
    Tensor a64 = detail::copy_as(a, is_complex(a.dtype()) || is_complex(b.dtype()) ? kComplex128 : kFloat64);
    Tensor b64 = detail::copy_as(b, a64.dtype());
    Tensor diff = abs(a64 - b64);
    Tensor tol = abs(b64) * rtol + atol;
    // NaNs compare equal only to NaNs in the same place.
    Tensor both_nan = isnan(a64) & isnan(b64);
    return all((diff <= tol) | both_nan);
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
    detail::check_defined(cond, "where");
    detail::check_defined(a, "where");
    detail::check_defined(b, "where");
    if (cond.dtype() != kBool)
        throw Error("gradc: where: the condition must be a bool tensor, got " + detail::describe(cond));
    const ScalarType dt = kernels::result_type(a, b);
    const Shape out = broadcast_shapes(broadcast_shapes(a.sizes(), b.sizes(), "where"), cond.sizes(), "where");
    Tensor ac = a.dtype() == dt ? a : detail::copy_as(a, dt);
    Tensor bc = b.dtype() == dt ? b : detail::copy_as(b, dt);
    Tensor y = uninitialized_tensor(out, dt);
    const Shape sc = kernels::broadcast_strides(cond, out), sa = kernels::broadcast_strides(ac, out),
                sb = kernels::broadcast_strides(bc, out);
    dispatch_floating(dt, "where", [&](auto tag) {
        using T = typename decltype(tag)::type;
        const bool* pc = static_cast<const bool*>(cond.raw_data());
        const T* pa = static_cast<const T*>(ac.raw_data());
        const T* pb = static_cast<const T*>(bc.raw_data());
        T* py = static_cast<T*>(y.raw_data());
        kernels::for_each_run<4>(out, {&y.strides(), &sc, &sa, &sb}, {0, 0, 0, 0}, [&](const kernels::Run<4>& r) {
            for (std::int64_t i = 0; i < r.count; ++i)
                py[r.offset[0] + i] = rules::where::eval(pc[r.offset[1] + i * r.stride[1]], pa[r.offset[2] + i * r.stride[2]],
                                                         pb[r.offset[3] + i * r.stride[3]]);
        });
    });
    if (!autograd::should_record({&a, &b})) return y;
    return autograd::record_single_output("where", {cond, a, b}, y, {cond},
                             [](const tensor_list& g, const autograd::BackwardContext& ctx) -> tensor_list {
                                 const Tensor& c = ctx.saved[0];
                                 tensor_list out(3);
                                 if (ctx.needs(1)) out[1] = autograd::chain(rules::where::partial(rules::arg<1>, c, g[0], g[0], g[0]), g[0]);
                                 if (ctx.needs(2)) out[2] = autograd::chain(rules::where::partial(rules::arg<2>, c, g[0], g[0], g[0]), g[0]);
                                 return out;
                             },
                             [](const tensor_list& t, const autograd::ForwardContext& ctx) -> tensor_list {
                                 // where(c, ta, tb): a missing tangent is a zero one.
                                 const Tensor& c = ctx.inputs[0];
                                 const Tensor ta = t[1].defined() ? t[1] : zeros_like(ctx.inputs[1]);
                                 const Tensor tb = t[2].defined() ? t[2] : zeros_like(ctx.inputs[2]);
                                 return {where(c, ta, tb)};
                             });
}

Tensor masked_fill(const Tensor& a, const Tensor& mask, double value) {
    detail::check_defined(a, "masked_fill");
    detail::check_defined(mask, "masked_fill");
    if (mask.dtype() != kBool)
        throw Error("gradc: masked_fill: the mask must be a bool tensor, got " + detail::describe(mask));
    if (broadcast_shapes(mask.sizes(), a.sizes(), "masked_fill") != a.sizes())
        throw Error("gradc: masked_fill: the mask of shape " + shape_string(mask.sizes()) +
                    " must broadcast to the shape of the tensor, " + shape_string(a.sizes()));
    return where(mask, full_like(a, value), a);
}

Tensor select(const Tensor& cond, const Tensor& a, const Tensor& b) {
    return where(cond, a, b);
}

}  // namespace gradc
