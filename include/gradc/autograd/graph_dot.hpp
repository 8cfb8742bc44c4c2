#pragma once
/// \file
/// `gradc::autograd::to_dot(tensors)`: the backward graph behind tensors as a Graphviz
/// picture (DOT syntax), drawn as torchviz's `make_dot` draws PyTorch's:
///
///   - the tensors asked for: green boxes (their name, shape and dtype), each joined to
///     its grad_fn;
///   - one grey box per backward Node, with its name() (`MulBackward0`, `AccumulateGrad`)
///     and, where it has any, how many pre-hooks, post-hooks, tensor hooks and retained
///     gradients it holds;
///   - edges from each node to the node that uses its gradient result in the forward
///     direction (from `next_edges()`[i] to the node, as torchviz draws them);
///   - the tensors a node saved for backward: orange boxes, joined by dotted edges, named
///     as `Node::saved_names()` names them (`self`, `other`, `result`), with their shape
///     and dtype, or why they cannot be shown (freed by backward, packed by a saved-tensor
///     hook, modified in place);
///   - the leaf behind each AccumulateGrad: a blue box with its shape and dtype and how
///     many tensor hooks and post-accumulate-grad hooks it has.
///
/// `names` labels tensors (leaves or outputs) found in the graph, as torchviz's `params`.
/// Reading the graph changes nothing in it: no saved tensor is unpacked through a hook, no
/// node is created. Render with `dot -Tsvg graph.dot -o graph.svg` (docs/dynamic.md,
/// "Pictures").

#include <string>
#include <utility>
#include <vector>

#include <gradc/autograd/tensor.hpp>

namespace gradc::autograd {

/// A name for a tensor in the picture.
using named_tensors = std::vector<std::pair<std::string, Tensor>>;

/// The backward graph that produced `roots`, as Graphviz DOT text, drawn like torchviz:
/// the tensors asked for (green), one box per Node with its name and hook counts, the
/// tensors each node saved (orange; named when `names` holds them), and the leaf behind
/// each AccumulateGrad (blue). Edges point in the forward direction. Never unpacks a
/// saved tensor (no unpack hook runs). Render with `dot -Tsvg`.
std::string to_dot(const tensor_list& roots, const named_tensors& names = {});
/// The backward graph of one tensor (see the list form).
std::string to_dot(const Tensor& root, const named_tensors& names = {});

}  // namespace gradc::autograd
