#pragma once
// What the engine calls in anomaly mode (include/gradc/autograd/anomaly_mode.hpp); what
// the node constructor calls is in anomaly_trace.hpp.
#include <string>
#include <vector>

#include <gradc/autograd/anomaly_mode.hpp>
#include <gradc/autograd/node.hpp>

namespace gradc::autograd::anomaly {

/// "Error detected in XBackward. Traceback of forward call that caused the error: ...",
/// then one "Previous calculation was induced by ..." per node whose backward created
/// the one before: each a warning of its own, as LibTorch's `AnomalyMetadata::print_stack`
/// emits them; nothing for a node created outside anomaly mode.
std::vector<std::string> forward_report(const Node& node);
/// `node.run(grad_outputs)` with the NaN check, the forward trace appended to an error,
/// and `node` as the parent of the nodes created meanwhile.
tensor_list run_checked(Node& node, tensor_list&& grad_outputs);

}  // namespace gradc::autograd::anomaly
