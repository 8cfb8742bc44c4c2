// Complex parts and the modulus. Gradients follow the "Autograd mechanics" notes'
// convention: for a real loss L of z = x + iy the gradient is ∂L/∂x + i·∂L/∂y. Tangents are
// the real differentials: d|z| = Re(conj(z)·dz)/|z|, d arg z = Im(conj(z)·dz)/|z|²,
// d conj(z) = conj(dz) (non-holomorphic, so no partial times tangent as in elementwise.hpp).
#include <gradc/autograd/chain.hpp>
#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/function.hpp>

#include "elementwise.hpp"

namespace gradc {

namespace {

// out = part(a) for complex a, elementwise (part: 0 real, 1 imaginary, 2 modulus, 3 argument).
Tensor complex_part(const Tensor& a, int part) {
    const ScalarType rt = to_real_type(a.dtype());
    Tensor y = uninitialized_tensor(a.sizes(), rt);
    dispatch_floating(a.dtype(), "complex part", [&](auto tag) {
        using T = typename decltype(tag)::type;
        using R = kernels::real_of_t<T>;
        const T* pa = static_cast<const T*>(a.raw_data());
        R* py = static_cast<R*>(y.raw_data());
        kernels::for_each_run<2>(a.sizes(), {&y.strides(), &a.strides()}, {0, 0}, [&](const kernels::Run<2>& r) {
            for (std::int64_t i = 0; i < r.count; ++i) {
                const T v = pa[r.offset[1] + i * r.stride[1]];
                R out{};
                if constexpr (kernels::is_complex_v<T>) {
                    out = part == 0 ? v.real() : part == 1 ? v.imag() : part == 2 ? std::abs(v) : std::arg(v);
                } else {
                    out = part == 0 ? v : part == 1 ? R(0) : part == 2 ? std::abs(v) : (v < 0 ? R(M_PI) : std::isnan(v) ? v : R(0));
                }
                py[r.offset[0] + i] = out;
            }
        });
    });
    return y;
}

// i·t, differentiably.
Tensor times_i(const Tensor& t) {
    if (t.is_complex()) return complex(-imag(t), real(t));
    return complex(zeros_like(t), t);
}

}  // namespace

Tensor real(const Tensor& a) {
    detail::check_defined(a, "real");
    if (!a.is_complex()) return a;
    Tensor y = complex_part(a, 0);
    return autograd::record_single_output("real", {a}, y, {}, [](const tensor_list& g, const autograd::BackwardContext&) -> tensor_list {
        return {complex(g[0], zeros_like(g[0]))};
    }, [](const tensor_list& t, const autograd::ForwardContext&) -> tensor_list { return {real(t[0])}; });
}

Tensor imag(const Tensor& a) {
    detail::check_defined(a, "imag");
    if (!a.is_complex()) throw Error("gradc: imag is not implemented for real tensors, got " + detail::describe(a));
    Tensor y = complex_part(a, 1);
    return autograd::record_single_output("imag", {a}, y, {}, [](const tensor_list& g, const autograd::BackwardContext&) -> tensor_list {
        return {times_i(g[0])};
    }, [](const tensor_list& t, const autograd::ForwardContext&) -> tensor_list { return {imag(t[0])}; });
}

Tensor conj(const Tensor& a) {
    detail::check_defined(a, "conj");
    if (!a.is_complex()) return a;
    Tensor y = complex(complex_part(a, 0), -complex_part(a, 1));
    return autograd::record_single_output("conj", {a}, y, {}, [](const tensor_list& g, const autograd::BackwardContext&) -> tensor_list {
        return {conj(g[0])};
    }, [](const tensor_list& t, const autograd::ForwardContext&) -> tensor_list { return {conj(t[0])}; });
}

Tensor angle(const Tensor& a) {
    detail::check_defined(a, "angle");
    Tensor y = complex_part(a, 3);
    return autograd::record_single_output("angle", {a}, y, {a}, [](const tensor_list& g, const autograd::BackwardContext& ctx) -> tensor_list {
        const Tensor& z = ctx.saved[0];
        if (!z.is_complex()) return {zeros_like(g[0])};
        // i·z/|z|², and 0 at the origin.
        Tensor r2 = real(z * conj(z));
        Tensor dz = times_i(z) / where(r2 == 0.0, ones_like(r2), r2);
        return {g[0] * where(r2 == 0.0, zeros_like(dz), dz)};
    }, [](const tensor_list& t, const autograd::ForwardContext& ctx) -> tensor_list {
        const Tensor& z = ctx.inputs[0];
        if (!z.is_complex()) return {zeros_like(ctx.outputs[0])};
        Tensor r2 = real(z * conj(z));
        Tensor d = imag(conj(z) * t[0]) / where(r2 == 0.0, ones_like(r2), r2);
        return {where(r2 == 0.0, zeros_like(d), d)};
    });
}

Tensor detail::complex_abs(const Tensor& a) {
    Tensor y = complex_part(a, 2);
    return autograd::record_single_output("abs", {a}, y, {a, y}, [](const tensor_list& g, const autograd::BackwardContext& ctx) -> tensor_list {
        const Tensor& z = ctx.saved[0];
        const Tensor& r = ctx.saved[1];
        // z/|z| (the gradient of the modulus), 0 at the origin as for real abs.
        Tensor safe = where(r == 0.0, ones_like(r), r);
        return {where(r == 0.0, zeros_like(z), z / safe) * g[0]};
    }, [](const tensor_list& t, const autograd::ForwardContext& ctx) -> tensor_list {
        const Tensor& z = ctx.inputs[0];
        const Tensor& r = ctx.outputs[0];
        Tensor d = real(conj(z) * t[0]) / where(r == 0.0, ones_like(r), r);
        return {where(r == 0.0, zeros_like(d), d)};
    });
}

Tensor complex(const Tensor& re, const Tensor& im) {
    detail::check_defined(re, "complex");
    detail::check_defined(im, "complex");
    if (re.is_complex() || im.is_complex() || !is_floating_point(re.dtype()) || re.dtype() != im.dtype())
        throw Error("gradc: complex expects two real floating tensors of the same dtype, got " + detail::describe(re) +
                    " and " + detail::describe(im));
    const Shape out = broadcast_shapes(re.sizes(), im.sizes(), "complex");
    Tensor y = uninitialized_tensor(out, to_complex_type(re.dtype()));
    const Shape sr = kernels::broadcast_strides(re, out), si = kernels::broadcast_strides(im, out);
    dispatch_floating(re.dtype(), "complex", [&](auto tag) {
        using R = typename decltype(tag)::type;
        if constexpr (!kernels::is_complex_v<R>) {
            const R* pr = static_cast<const R*>(re.raw_data());
            const R* pi = static_cast<const R*>(im.raw_data());
            auto* py = static_cast<std::complex<R>*>(y.raw_data());
            kernels::for_each_run<3>(out, {&y.strides(), &sr, &si}, {0, 0, 0}, [&](const kernels::Run<3>& r) {
                for (std::int64_t i = 0; i < r.count; ++i)
                    py[r.offset[0] + i] = {pr[r.offset[1] + i * r.stride[1]], pi[r.offset[2] + i * r.stride[2]]};
            });
        }
    });
    return autograd::record_single_output("complex", {re, im}, y, {}, [](const tensor_list& g, const autograd::BackwardContext&) -> tensor_list {
        return {real(g[0]), imag(g[0])};
    }, [](const tensor_list& t, const autograd::ForwardContext& ctx) -> tensor_list {
        return {complex(t[0].defined() ? t[0] : zeros_like(ctx.inputs[0]), t[1].defined() ? t[1] : zeros_like(ctx.inputs[1]))};
    });
}

}  // namespace gradc
