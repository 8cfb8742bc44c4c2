#pragma once
/// \file
/// The exception type of gradc's run-time checks. Messages name the operation, what it
/// got and what it expected.

#include <stdexcept>
#include <string>

namespace gradc {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace gradc
