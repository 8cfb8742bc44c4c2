// Tensor::index and index_put_ (LibTorch's torch::indexing), and assignment through a
// temporary (`x[0][1] = v`), all built on the view operations, so they record like them.
#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/indexing.hpp>
#include <gradc/autograd/tensor_indexing.hpp>
#include <gradc/autograd/view.hpp>

#include "internal.hpp"

namespace gradc {

namespace {

using indexing::TensorIndex;
using Kind = TensorIndex::Kind;

// How many dimensions of the tensor an entry names (None and bools add one instead).
bool consumes_dimension(Kind k) { return k == Kind::Integer || k == Kind::Slice || k == Kind::Tensor; }

// One int64 tensor index along dimension `d`: the entries it picks, in its shape.
Tensor pick(const Tensor& r, std::int64_t d, const Tensor& index) {
    if (!index.defined()) throw Error("gradc: index: an index tensor is undefined");
    if (index.dtype() == kBool)
        throw Error("gradc: index: boolean mask indices are not supported; use masked_fill or where");
    if (index.dtype() != kInt64)
        throw Error("gradc: index: tensors used as indices must be long (int64), got " + std::string(to_string(index.dtype())));
    const Tensor flat = index_select(r, d, index.reshape({-1}));
    Shape sizes;
    for (std::int64_t i = 0; i < d; ++i) sizes.push_back(r.sizes()[i]);
    for (std::int64_t s : index.sizes()) sizes.push_back(s);
    for (std::int64_t i = d + 1; i < r.dim(); ++i) sizes.push_back(r.sizes()[i]);
    return flat.reshape(sizes);
}

Tensor apply_indices(const Tensor& self, std::initializer_list<TensorIndex> indices, const char* op) {
    detail::check_defined(self, op);
    std::int64_t named = 0, ellipses = 0, tensors = 0;
    for (const auto& i : indices) {
        named += consumes_dimension(i.kind());
        ellipses += i.kind() == Kind::Ellipsis;
        tensors += i.kind() == Kind::Tensor;
    }
    if (ellipses > 1) throw Error(std::string("gradc: ") + op + ": an index can only have a single ellipsis ('...')");
    if (tensors > 1)
        throw Error(std::string("gradc: ") + op + ": only one tensor index is supported (got " + std::to_string(tensors) +
                    "); combine them with index_select one dimension at a time");
    if (named > self.dim())
        throw Error(std::string("gradc: ") + op + ": too many indices for tensor of dimension " + std::to_string(self.dim()) +
                    " (got " + std::to_string(named) + ")");
    Tensor r = self;
    std::int64_t d = 0;
    for (const auto& i : indices) {
        switch (i.kind()) {
            case Kind::Integer: {
                const std::int64_t size = r.sizes()[d];
                if (i.integer() < -size || i.integer() >= size)
                    throw Error(std::string("gradc: ") + op + ": index " + std::to_string(i.integer()) +
                                " is out of bounds for dimension " + std::to_string(d) + " with size " + std::to_string(size));
                r = r.select(d, i.integer());
                break;
            }
            case Kind::Slice:
                r = r.slice(d, i.slice().start(), i.slice().stop(), i.slice().step());
                ++d;
                break;
            case Kind::None:
                r = r.unsqueeze(d++);
                break;
            case Kind::Boolean:
                r = r.unsqueeze(d);
                if (!i.integer()) r = r.slice(d, 0, 0);
                ++d;
                break;
            case Kind::Ellipsis:
                d += self.dim() - named;
                break;
            case Kind::Tensor: {
                const Tensor& index = i.tensor();
                r = pick(r, d, index);
                d += index.defined() ? index.dim() : 0;
                break;
            }
        }
    }
    return r;
}

const Tensor& check_no_tensor_index(std::initializer_list<TensorIndex> indices, const Tensor& self) {
    for (const auto& i : indices)
        if (i.kind() == Kind::Tensor)
            throw Error("gradc: index_put_: tensor indices are not supported (the indexed entries would be a copy); "
                        "write through index_add or scatter_add, or use integer and slice indices");
    return self;
}

}  // namespace

Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const { return apply_indices(*this, indices, "index"); }

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Tensor& values) const {
    check_no_tensor_index(indices, *this);
    apply_indices(*this, indices, "index_put_").copy_(values);
    return const_cast<Tensor&>(*this);
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, double value) const {
    check_no_tensor_index(indices, *this);
    apply_indices(*this, indices, "index_put_").fill_(value);
    return const_cast<Tensor&>(*this);
}

Tensor& Tensor::operator=(const Tensor& values) && { return copy_(values); }

Tensor& Tensor::operator=(double value) && { return fill_(value); }

}  // namespace gradc
