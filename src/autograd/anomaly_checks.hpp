#pragma once
// What the node constructor and the engine call in anomaly mode
// (include/gradc/autograd/anomaly_mode.hpp).
#include <memory>
#include <string>
#include <vector>

#include <gradc/autograd/anomaly_mode.hpp>
#include <gradc/autograd/node.hpp>

namespace gradc::autograd::anomaly {

/// The forward stack of the node being constructed and the node whose backward induced it.
std::shared_ptr<const AnomalyMetadata> record_metadata();
/// "Error detected in XBackward. Traceback of forward call that caused the error: ...",
/// then one "Previous calculation was induced by ..." per node whose backward created
/// the one before: each a warning of its own, as LibTorch's `AnomalyMetadata::print_stack`
/// emits them; nothing for a node created outside anomaly mode.
std::vector<std::string> forward_report(const Node& node);
/// `node.run(grad_outputs)` with the NaN check, the forward trace appended to an error,
/// and `node` as the parent of the nodes created meanwhile.
tensor_list run_checked(Node& node, tensor_list&& grad_outputs);

}  // namespace gradc::autograd::anomaly
