// Anomaly detection's switch and its scope guard (PyTorch's anomaly_mode.cpp). What a
// node records while it is on and what the engine checks around a node's backward are in
// anomaly_checks.cpp, beside the graph they read.
#include <atomic>

#include <gradc/autograd/anomaly_mode.hpp>
#include <gradc/autograd/warning.hpp>

namespace gradc::autograd {

namespace {
std::atomic<bool> enabled{false};
std::atomic<bool> check_nan{true};
}  // namespace

bool AnomalyMode::is_enabled() { return enabled.load(std::memory_order_relaxed); }
bool AnomalyMode::should_check_nan() { return check_nan.load(std::memory_order_relaxed); }
void AnomalyMode::set_enabled(bool on, bool nan) {
    enabled.store(on, std::memory_order_relaxed);
    check_nan.store(nan, std::memory_order_relaxed);
}

DetectAnomalyGuard::DetectAnomalyGuard(bool nan)
    : previous_enabled_(AnomalyMode::is_enabled()), previous_check_nan_(AnomalyMode::should_check_nan()) {
    warn("This mode should be enabled only for debugging as the different tests will slow down your program execution.");
    AnomalyMode::set_enabled(true, nan);
}

DetectAnomalyGuard::~DetectAnomalyGuard() { AnomalyMode::set_enabled(previous_enabled_, previous_check_nan_); }

}  // namespace gradc::autograd
