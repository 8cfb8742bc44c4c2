#pragma once
/// \file
/// The array operations as dynamic-mode tensor operations, for the cross-check of array
/// kernels (check/arrays.hpp): each rules/arrays/ operation mapped to the tensor
/// operations that compute it, so that every derivative of the cross-check comes from
/// the dynamic engine. Scalars are 0-dim tensors, vectors 1-dim, matrices 2-dim.

#include <cstdint>
#include <vector>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/indexing.hpp>
#include <gradc/autograd/linalg.hpp>
#include <gradc/autograd/linalg_decompositions.hpp>
#include <gradc/autograd/scan.hpp>
#include <gradc/autograd/reduction.hpp>
#include <gradc/autograd/view.hpp>
#include <gradc/check/static.hpp>
#include <gradc/lower/equal_copies.hpp>
#include <gradc/rules/arrays/access.hpp>
#include <gradc/rules/arrays/building.hpp>
#include <gradc/rules/arrays/cholesky.hpp>
#include <gradc/rules/arrays/lu.hpp>
#include <gradc/rules/arrays/prefix_sums.hpp>
#include <gradc/rules/arrays/indexed_access.hpp>
#include <gradc/rules/arrays/products.hpp>
#include <gradc/rules/arrays/reductions.hpp>
#include <gradc/rules/arrays/triangular.hpp>

namespace gradc::check::detail {

namespace ra = rules::arrays;

inline Tensor index_tensor(const std::vector<double>& index) {
    return from_vector(index, {std::int64_t(index.size())}, TensorOptions().dtype(kLong));
}

template <class Op>
struct array_tensor_op;

template <>
struct array_tensor_op<ra::matvec> {
    static Tensor apply(const Tensor& a, const Tensor& x) { return mv(a, x); }
};
template <>
struct array_tensor_op<ra::matmul> {
    static Tensor apply(const Tensor& a, const Tensor& b) { return mm(a, b); }
};
template <>
struct array_tensor_op<ra::transpose> {
    static Tensor apply(const Tensor& a) { return t(a); }
};
template <>
struct array_tensor_op<ra::dot> {
    static Tensor apply(const Tensor& a, const Tensor& b) { return gradc::dot(a, b); }
};
template <>
struct array_tensor_op<ra::outer> {
    static Tensor apply(const Tensor& a, const Tensor& b) { return gradc::outer(a, b); }
};
template <>
struct array_tensor_op<ra::sum> {
    static Tensor apply(const Tensor& a) { return a.sum(); }
};
template <>
struct array_tensor_op<ra::mean> {
    static Tensor apply(const Tensor& a) { return gradc::mean(a); }
};
template <>
struct array_tensor_op<ra::squared_norm> {
    static Tensor apply(const Tensor& a) { return (a * a).sum(); }
};
template <>
struct array_tensor_op<ra::max_entry> {
    static Tensor apply(const Tensor& a) { return gradc::max(a); }
};
template <>
struct array_tensor_op<ra::min_entry> {
    static Tensor apply(const Tensor& a) { return gradc::min(a); }
};
template <>
struct array_tensor_op<ra::log_sum_exp> {
    static Tensor apply(const Tensor& a) { return logsumexp(a.reshape({-1}), {0}); }
};
template <>
struct array_tensor_op<ra::softmax> {
    static Tensor apply(const Tensor& a) { return gradc::softmax(a, 0); }
};
template <std::size_t R, std::size_t C>
struct array_tensor_op<ra::element<R, C>> {
    static Tensor apply(const Tensor& a) {
        return a.dim() == 1 ? select(a, 0, std::int64_t(R)) : select(select(a, 0, std::int64_t(R)), 0, std::int64_t(C));
    }
};
template <std::size_t I>
struct array_tensor_op<ra::row_of<I>> {
    static Tensor apply(const Tensor& a) { return select(a, 0, std::int64_t(I)); }
};
template <std::size_t J>
struct array_tensor_op<ra::col_of<J>> {
    static Tensor apply(const Tensor& a) { return select(a, 1, std::int64_t(J)); }
};
/// The index operands of the run-time forms are constants: 0-dim tensors of their value.
inline std::int64_t index_of(const Tensor& i) { return std::int64_t(i.item<double>()); }
template <>
struct array_tensor_op<ra::element_at> {
    static Tensor apply(const Tensor& x, const Tensor& i) { return select(x, 0, index_of(i)); }
    static Tensor apply(const Tensor& w, const Tensor& i, const Tensor& j) {
        return select(select(w, 0, index_of(i)), 0, index_of(j));
    }
};
template <>
struct array_tensor_op<ra::row_at> {
    static Tensor apply(const Tensor& w, const Tensor& i) { return select(w, 0, index_of(i)); }
};
template <>
struct array_tensor_op<ra::col_at> {
    static Tensor apply(const Tensor& w, const Tensor& j) { return select(w, 1, index_of(j)); }
};
template <std::size_t O, std::size_t N>
struct array_tensor_op<ra::segment_of<O, N>> {
    static Tensor apply(const Tensor& a) { return narrow(a, 0, std::int64_t(O), std::int64_t(N)); }
};
template <>
struct array_tensor_op<ra::diag_of> {
    static Tensor apply(const Tensor& a) {
        const std::int64_t r = a.size(0), c = a.size(1);
        std::vector<double> index;
        for (std::int64_t k = 0; k < std::min(r, c); ++k) index.push_back(double(k * c + k));
        return index_select(a.reshape({-1}), 0, index_tensor(index));
    }
};
template <std::size_t D>
struct array_tensor_op<ra::lower_triangular_of<D>> {
    /// The packed values and a zero, gathered by the map of each (r, c) to its source.
    static Tensor apply(const Tensor& v) {
        std::vector<double> index(D * D, double(ra::lower_triangular_of<D>::packed));
        for (std::size_t r = 0; r < D; ++r) {
            index[r * D + r] = double(r);
            for (std::size_t c = 0; c < r; ++c) index[r * D + c] = double(ra::lower_triangular_of<D>::strict(r, c));
        }
        const Tensor padded = cat({v, zeros({1}, TensorOptions().dtype(kDouble))}, 0);
        return index_select(padded, 0, index_tensor(index)).reshape({std::int64_t(D), std::int64_t(D)});
    }
};
template <std::size_t D>
struct array_tensor_op<ra::packed_lower_matvec<D>> {
    static Tensor apply(const Tensor& v, const Tensor& x) { return mv(array_tensor_op<ra::lower_triangular_of<D>>::apply(v), x); }
};
template <>
struct array_tensor_op<ra::concat_parts> {
    template <class... T>
    static Tensor apply(const T&... parts) {
        return cat({parts.reshape({-1})...}, 0);
    }
};
template <>
struct array_tensor_op<ra::stack_rows> {
    template <class... T>
    static Tensor apply(const T&... rows) {
        return gradc::stack({rows...}, 0);
    }
};

template <>
struct array_tensor_op<ra::cumsum> {
    static Tensor apply(const Tensor& a) { return gradc::cumsum(a, 0); }
};
template <>
struct array_tensor_op<ra::cholesky> {
    /// The static operation factors the symmetric part ½(A + Aᵀ); the dynamic one reads
    /// its input's lower triangle and has the symmetric gradient, so given the symmetric
    /// part it has the same value and, through the sum, the same gradient.
    static Tensor apply(const Tensor& a) { return linalg::cholesky((a + t(a)) * 0.5); }
};
/// The factors stand for A in every derivative, so A itself is their tensor.
template <>
struct array_tensor_op<ra::lu_factor> {
    static Tensor apply(const Tensor& a) { return a; }
};
template <>
struct array_tensor_op<ra::lu_solve> {
    static Tensor apply(const Tensor& a, const Tensor& b) { return linalg::solve(a, b); }
};
/// The flat program of an array kernel evaluated with tensors, node by node.
template <class R, class... O, class Literals>
Tensor array_node_tensor(lower::apply<R, O...>, const tensor_list& nodes, const tensor_list&, const Literals&) {
    if constexpr (ra::array_operation<R>) {
        return array_tensor_op<R>::apply(operand_tensor<O>::get(nodes)...);
    } else {
        return tensor_op<R>(operand_tensor<O>::get(nodes)...);
    }
}
template <class Node, class Literals>
Tensor array_node_tensor(Node node, const tensor_list& nodes, const tensor_list& leaves, const Literals& literals) {
    return node_tensor(node, nodes, leaves, literals);
}

template <class Flat>
struct array_tensors;
template <class... Nodes>
struct array_tensors<lower::flat<Nodes...>> {
    /// A copy of an earlier node that computes the same (lower/equal_copies.hpp) is that
    /// node's tensor, as in the kernel's adjoint sweep.
    template <class Literals>
    static tensor_list get(const tensor_list& leaves, const Literals& literals) {
        const auto canon = lower::structural_copies<lower::flat<Nodes...>>::canonical(literals);
        tensor_list nodes;
        nodes.reserve(sizeof...(Nodes));
        std::size_t i = 0;
        (void)std::initializer_list<int>{
            (nodes.push_back(canon[i] != i ? nodes[canon[i]] : array_node_tensor(Nodes{}, nodes, leaves, literals)), ++i,
             0)...};
        return nodes;
    }
};

}  // namespace gradc::check::detail
