#pragma once
// What the node constructor calls in anomaly mode (include/gradc/autograd/anomaly_mode.hpp).
// Defined in anomaly_checks.cpp, which knows the node whose backward is running; declared
// apart from the engine's checks so that the node, below the engine, can call it.
#include <memory>

#include <gradc/autograd/anomaly_mode.hpp>

namespace gradc::autograd::anomaly {

/// The forward stack of the node being constructed and the node whose backward induced it.
std::shared_ptr<const AnomalyMetadata> record_metadata();

}  // namespace gradc::autograd::anomaly
