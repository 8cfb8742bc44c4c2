#include <gradc/autograd/grad_mode.hpp>

namespace gradc {

namespace {
thread_local bool grad_enabled = true;
thread_local bool inference_enabled = false;
}  // namespace

bool GradMode::is_enabled() {
    return grad_enabled;
}
void GradMode::set_enabled(bool enabled) {
    grad_enabled = enabled;
}

AutoGradMode::AutoGradMode(bool enabled) : previous_(grad_enabled) {
    grad_enabled = enabled;
}
AutoGradMode::~AutoGradMode() {
    grad_enabled = previous_;
}

InferenceMode::InferenceMode(bool enabled) : previous_grad_(grad_enabled), previous_inference_(inference_enabled) {
    // As LibTorch's c10::InferenceMode: grad mode is the opposite of inference mode.
    inference_enabled = enabled;
    grad_enabled = !enabled;
}
InferenceMode::~InferenceMode() {
    grad_enabled = previous_grad_;
    inference_enabled = previous_inference_;
}
bool InferenceMode::is_enabled() {
    return inference_enabled;
}

}  // namespace gradc
