#pragma once
/// \file
/// Grad modes ("Autograd mechanics" notes, "Locally disabling gradient computation"). All
/// state is thread-local: a NoGradGuard in one thread does not affect another.
///  - grad mode (default): operations on tensors that require grad are recorded;
///  - no-grad: nothing is recorded, results do not require grad;
///  - inference mode: as no-grad, and tensors created inside are inference tensors, which
///    may not be saved for backward nor modified in place outside inference mode later.

namespace gradc {

/// Whether operations are recorded on this thread (LibTorch's at::GradMode).
struct GradMode {
    static bool is_enabled();  ///< Whether grad mode is on on this thread.
    static void set_enabled(bool enabled);  ///< Sets grad mode on this thread.
};

/// Sets grad mode to `enabled` for its lifetime, then restores the previous mode.
class AutoGradMode {
public:
    explicit AutoGradMode(bool enabled);  ///< Sets grad mode to `enabled` for the scope.
    ~AutoGradMode();
    AutoGradMode(const AutoGradMode&) = delete;
    AutoGradMode& operator=(const AutoGradMode&) = delete;

private:
    bool previous_;
};

/// Disables gradient recording for its lifetime.
class NoGradGuard : public AutoGradMode {
public:
    NoGradGuard() : AutoGradMode(false) {}
};

/// Inference mode for its lifetime (or normal mode with `InferenceMode(false)`).
class InferenceMode {
public:
    explicit InferenceMode(bool enabled = true);  ///< Inference mode on (or off) for the scope.
    ~InferenceMode();
    InferenceMode(const InferenceMode&) = delete;
    InferenceMode& operator=(const InferenceMode&) = delete;
    static bool is_enabled();  ///< Whether inference mode is on on this thread.

private:
    bool previous_grad_;
    bool previous_inference_;
};

}  // namespace gradc
