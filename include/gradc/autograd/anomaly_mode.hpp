#pragma once
/// \file
/// Anomaly detection (PyTorch's `torch.autograd.detect_anomaly`, LibTorch's
/// `torch::autograd::DetectAnomalyGuard`): while it is enabled, every node of the backward
/// graph records the stack of the forward call that created it, and the engine
///  - appends that forward trace (and, for a node created by a backward pass with
///    create_graph, the trace of the node whose backward created it) to any error a node
///    raises in backward, and also sends it as a warning, as PyTorch prints it;
///  - with `check_nan`, raises "Function 'XBackward' returned nan values in its 0th
///    output." when a node's backward produces a NaN.
/// Process-wide, as in PyTorch. It costs a stack walk per recorded operation: for
/// debugging only.

#include <memory>
#include <string>

namespace gradc::autograd {

/// Anomaly detection, process-wide (LibTorch's torch::autograd::AnomalyMode): forward traces in errors and a NaN check of every backward output.
struct AnomalyMode {
    static bool is_enabled();  ///< Whether anomaly detection is on.
    static bool should_check_nan();  ///< Whether backward checks its outputs for NaN.
    /// Turns anomaly detection on or off (and the NaN check with it).
    static void set_enabled(bool enabled, bool check_nan = true);
};

/// Enables anomaly detection for its lifetime (with a warning that it slows the program
/// down), then restores the previous setting.
class DetectAnomalyGuard {
public:
    explicit DetectAnomalyGuard(bool check_nan = true);  ///< Turns anomaly detection on for the scope.
    ~DetectAnomalyGuard();
    DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
    DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;

private:
    bool previous_enabled_;
    bool previous_check_nan_;
};

/// `auto guard = detect_anomaly();`: Python's `with torch.autograd.detect_anomaly():`.
[[nodiscard]] inline DetectAnomalyGuard detect_anomaly(bool check_nan = true) { return DetectAnomalyGuard(check_nan); }
/// Python's `torch.autograd.set_detect_anomaly(mode, check_nan)`.
inline void set_detect_anomaly(bool mode, bool check_nan = true) { AnomalyMode::set_enabled(mode, check_nan); }

/// What a node records in anomaly mode: the forward stack (one frame per line, innermost
/// first), and the record of the node whose backward was running when it was created.
struct AnomalyMetadata {
    std::string forward_trace;  ///< The forward call's stack as text.
    std::string parent_name;  ///< The name of the node whose backward created this one (create_graph).
    std::shared_ptr<const AnomalyMetadata> parent;  ///< That node's metadata.
};

}  // namespace gradc::autograd
