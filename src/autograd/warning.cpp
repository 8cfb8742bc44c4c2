// Warnings go to a per-thread handler (c10's WarningUtils); the default one writes to
// stderr.
#include <iostream>

#include <gradc/autograd/warning.hpp>

namespace gradc {

void WarningHandler::process(const Warning& warning) { std::cerr << "[W] " << warning.msg() << '\n'; }

namespace WarningUtils {
namespace {
WarningHandler* stderr_handler() {
    static WarningHandler handler;
    return &handler;
}
thread_local WarningHandler* thread_handler = nullptr;
}  // namespace

WarningHandler* get_warning_handler() { return thread_handler ? thread_handler : stderr_handler(); }

void set_warning_handler(WarningHandler* handler) { thread_handler = handler; }
}  // namespace WarningUtils

void warn(std::string message) { get_warning_handler()->process(Warning(std::move(message))); }

}  // namespace gradc
