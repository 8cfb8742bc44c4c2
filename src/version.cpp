#include <gradc/version.hpp>

namespace gradc {

const char* version() noexcept { return "0.1.0"; }

}  // namespace gradc
