#pragma once
/// \file
/// A compiled kernel's flat program evaluated with tensors, node by node: variables are
/// the given tensors, literals 0-dim float64 tensors, each rule its tensor operation
/// (`gradc::rule_tensor_op`: the function of the same name; `max`/`min` are the
/// elementwise `maximum`/`minimum`), each condition its comparison. The same nodes as the
/// kernel's (equal subtrees merged), but every operation is a dynamic-mode operation that
/// records its own backward node. The static-vs-dynamic cross-check and the
/// differentiable derivatives of a fused kernel both use it.

#include <cstddef>
#include <initializer_list>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/tensor.hpp>
#include <gradc/lower/equal_copies.hpp>
#include <gradc/lower/flat.hpp>

namespace gradc::autograd::fusion {

namespace detail {

template <class Operand>
struct operand_tensor;
template <std::size_t I>
struct operand_tensor<lower::ref<I>> {
    static Tensor get(const tensor_list& nodes) { return nodes[I]; }
};
template <class Op, class... O>
struct operand_tensor<lower::test<Op, O...>> {
    static Tensor get(const tensor_list& nodes) { return Op::eval(operand_tensor<O>::get(nodes)...); }
};

template <std::size_t J, class Literals>
Tensor node_tensor(lower::input<J>, const tensor_list&, const tensor_list& leaves, const Literals&) {
    return leaves[J];
}
template <std::size_t L, class Literals>
Tensor node_tensor(lower::constant<L>, const tensor_list&, const tensor_list&, const Literals& literals) {
    return scalar_tensor(literals[L], gradc::dtype(kFloat64));
}
template <class Tag, class Literals>
Tensor node_tensor(lower::named<Tag>, const tensor_list&, const tensor_list&, const Literals&) {
    return scalar_tensor(graphs::named_value<Tag>(), gradc::dtype(kFloat64));
}
template <class R, class... O, class Literals>
Tensor node_tensor(lower::apply<R, O...>, const tensor_list& nodes, const tensor_list&, const Literals&) {
    return rule_tensor_op<R>::apply(operand_tensor<O>::get(nodes)...);
}

}  // namespace detail

/// Every node of the flat program `Flat` computed from `leaves` (one tensor per variable).
/// A copy of an earlier node that computes the same (a subexpression with literals used
/// twice, lower/equal_copies.hpp) is that node's tensor, as in the kernel's adjoint sweep.
template <class Flat>
struct flat_tensors;
template <class... Nodes>
struct flat_tensors<lower::flat<Nodes...>> {
    template <class Literals>
    static tensor_list get(const tensor_list& leaves, const Literals& literals) {
        const auto canon = lower::structural_copies<lower::flat<Nodes...>>::canonical(literals);
        tensor_list nodes;
        nodes.reserve(sizeof...(Nodes));
        std::size_t i = 0;
        (void)std::initializer_list<int>{
            (nodes.push_back(canon[i] != i ? nodes[canon[i]] : detail::node_tensor(Nodes{}, nodes, leaves, literals)), ++i,
             0)...};
        return nodes;
    }
};

/// The outputs of the compiled kernel `k` computed from `leaves` with tensor operations.
template <class Kernel>
tensor_list kernel_outputs(const Kernel& k, const tensor_list& leaves) {
    using P = typename Kernel::program;
    const tensor_list nodes = flat_tensors<typename P::nodes>::get(leaves, k.literals());
    tensor_list out;
    out.reserve(P::output_count);
    for (std::size_t m = 0; m < P::output_count; ++m) out.push_back(nodes[P::output_nodes[m]]);
    return out;
}

}  // namespace gradc::autograd::fusion
