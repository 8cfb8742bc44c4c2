#pragma once

namespace gradc {

/// Version of the compiled runtime library (the headers' version is the same).
const char* version() noexcept;

}  // namespace gradc
