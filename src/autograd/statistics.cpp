// var and std, recorded as one node each (VarBackward, StdBackward) whose formulas are
// written with differentiable operations, so that create_graph differentiates them again.
#include <algorithm>

#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/function.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/reduction.hpp>
#include <gradc/autograd/statistics.hpp>
#include <gradc/autograd/view.hpp>

#include "internal.hpp"

namespace gradc {

namespace {

using autograd::BackwardContext;

// The reduced dimensions (every one for an empty list), the input's shape with them kept
// as 1, the result's shape, and the divisor N - correction.
struct Reduction {
    Shape dims;
    Shape kept;
    Shape out;
    double divisor = 0;
};

Reduction reduction_of(const Tensor& a, const Shape& dims_in, bool unbiased, bool keepdim, const char* op) {
    detail::check_defined(a, op);
    if (!a.is_floating_point() && !a.is_complex())
        throw Error(std::string("gradc: ") + op + ": expected a floating or complex tensor, got dtype " +
                    std::string(to_string(a.dtype())));
    Reduction r;
    r.kept = a.sizes();
    const std::vector<bool> reduced = detail::reduced_dimensions(a, dims_in, op);
    std::int64_t n = 1;
    for (std::int64_t d = 0; d < a.dim(); ++d) {
        if (reduced[d]) {
            r.dims.push_back(d);
            n *= a.sizes()[d];
            r.kept[d] = 1;
        }
        if (!reduced[d] || keepdim) r.out.push_back(r.kept[d]);
    }
    r.divisor = std::max(0.0, static_cast<double>(n) - (unbiased ? 1.0 : 0.0));
    return r;
}

// Σ |a - mean|² / (N - correction), with the reduced dimensions kept as 1.
Tensor centred_variance(const Tensor& a, const Reduction& r) {
    const Tensor d = a - mean(a, r.dims, true);
    const Tensor sq = a.is_complex() ? real(d * conj(d)) : d * d;
    return sum(sq, r.dims, true) / r.divisor;
}

// d var / d a applied to `grad_var` (shaped with the reduced dimensions kept):
// 2 (a - mean) g / (N - correction); for complex a, the conjugate Wirtinger form
// PyTorch uses, which is the same expression.
Tensor var_backward(const Tensor& grad_var, const Tensor& a, const Reduction& r) {
    return grad_var * (a - mean(a, r.dims, true)) * (2.0 / r.divisor);
}

// var, or std = sqrt(var) with PyTorch's std_backward: d std = d var / (2 std), and 0
// where std is 0 instead of the NaN of 0/0.
Tensor record_variance(const Tensor& a, const Reduction& r, bool standard_deviation) {
    Tensor result;
    {
        NoGradGuard no_grad;
        const Tensor v = centred_variance(a.detach(), r);
        result = (standard_deviation ? sqrt(v) : v).reshape(r.out);
    }
    const char* op = standard_deviation ? "std" : "var";
    const tensor_list saved = standard_deviation ? tensor_list{a, result} : tensor_list{a};  // std reads its result
    return autograd::record_single_output(op, {a}, result, saved, [r, standard_deviation](const tensor_list& g, const BackwardContext& ctx) -> tensor_list {
        Tensor grad_var = g[0].reshape(r.kept);
        if (standard_deviation) {
            const Tensor s = ctx.saved[1].reshape(r.kept);
            grad_var = (grad_var / (s * 2.0)).masked_fill(s == 0.0, 0.0);
        }
        return {var_backward(grad_var, ctx.saved[0], r)};
    });
}

}  // namespace

Tensor var(const Tensor& a, bool unbiased) { return record_variance(a, reduction_of(a, {}, unbiased, false, "var"), false); }
Tensor var(const Tensor& a, const Shape& dims, bool unbiased, bool keepdim) {
    return record_variance(a, reduction_of(a, dims, unbiased, keepdim, "var"), false);
}
Tensor std(const Tensor& a, bool unbiased) { return record_variance(a, reduction_of(a, {}, unbiased, false, "std"), true); }
Tensor std(const Tensor& a, const Shape& dims, bool unbiased, bool keepdim) {
    return record_variance(a, reduction_of(a, dims, unbiased, keepdim, "std"), true);
}

Tensor Tensor::var(bool unbiased) const { return gradc::var(*this, unbiased); }
Tensor Tensor::var(const Shape& dims, bool unbiased, bool keepdim) const { return gradc::var(*this, dims, unbiased, keepdim); }
Tensor Tensor::std(bool unbiased) const { return gradc::std(*this, unbiased); }
Tensor Tensor::std(const Shape& dims, bool unbiased, bool keepdim) const { return gradc::std(*this, dims, unbiased, keepdim); }
Tensor Tensor::norm(double p, const Shape& dims, bool keepdim) const { return gradc::norm(*this, p, dims, keepdim); }

}  // namespace gradc
