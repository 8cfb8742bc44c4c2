// cumsum: one running sum per line along the scanned dimension, over a contiguous copy.
// Its adjoint is the running sum taken from the other end, written as flip, cumsum,
// flip (the flip an index_select) so that it differentiates again.
#include <complex>
#include <type_traits>
#include <vector>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/function.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/indexing.hpp>
#include <gradc/autograd/scan.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "internal.hpp"

namespace gradc {

namespace {

// The type a line is summed in: PyTorch's CPU kernel sums float32 in double (its
// at::acc_type for the CPU), so that long lines lose no more than one rounding per element.
template <class T>
using accumulator_t = std::conditional_t<std::is_same_v<T, float>, double,
                                         std::conditional_t<std::is_same_v<T, std::complex<float>>, std::complex<double>, T>>;

// `t` with dimension `dim` reversed (a differentiable index_select).
Tensor flip(const Tensor& t, std::int64_t dim) {
    const std::int64_t n = t.size(dim);
    std::vector<std::int64_t> reversed(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) reversed[static_cast<std::size_t>(i)] = n - 1 - i;
    return index_select(t, dim, tensor_i64(reversed, {n}));
}

Tensor reversed_cumsum(const Tensor& g, std::int64_t dim) {
    if (g.dim() == 0 || g.size(dim) <= 1) return g;
    return flip(cumsum(flip(g, dim), dim), dim);
}

}  // namespace

Tensor cumsum(const Tensor& a, std::int64_t dim) {
    detail::check_defined(a, "cumsum");
    const std::int64_t d = detail::wrap_dim(dim, a.dim(), "cumsum");
    const ScalarType dt = a.dtype() == kBool ? kInt64 : a.dtype();
    // The shape as lines: `outer` blocks of `length` elements `inner` apart.
    std::int64_t outer = 1, length = 1, inner = 1;
    for (std::int64_t i = 0; i < a.dim(); ++i) (i < d ? outer : i == d ? length : inner) *= a.size(i);
    Tensor y = zeroed_tensor(a.sizes(), dt);
    {
        NoGradGuard no_grad;
        const Tensor x = detail::contiguous_as(a.detach(), dt);
        dispatch(dt, [&](auto tag) {
            using T = typename decltype(tag)::type;
            if constexpr (!std::is_same_v<T, bool>) {
                const T* px = static_cast<const T*>(x.raw_data());
                T* py = static_cast<T*>(y.raw_data());
                for (std::int64_t o = 0; o < outer; ++o)
                    for (std::int64_t k = 0; k < inner; ++k) {
                        accumulator_t<T> acc(0);
                        for (std::int64_t i = 0, at = o * length * inner + k; i < length; ++i, at += inner) {
                            acc += accumulator_t<T>(px[at]);
                            py[at] = T(acc);
                        }
                    }
            }
        });
    }
    return autograd::record_single_output("cumsum", {a}, y, {}, [d](const tensor_list& g, const autograd::BackwardContext&) -> tensor_list {
        return {reversed_cumsum(g[0], d)};
    }, [d](const tensor_list& t, const autograd::ForwardContext&) -> tensor_list { return {cumsum(t[0], d)}; });
}

Tensor Tensor::cumsum(std::int64_t dim) const { return gradc::cumsum(*this, dim); }

}  // namespace gradc
