#pragma once
/// \file
/// Warnings of the dynamic mode, as LibTorch's `TORCH_WARN` with c10's handlers: a warning
/// does not stop the program; it goes to the handler of the calling thread, which by
/// default writes `[W] message` to stderr. A program or a test captures warnings by
/// installing its own handler for a scope:
///
///     struct Collect : gradc::WarningHandler {
///         std::vector<std::string> seen;
///         void process(const gradc::Warning& w) override { seen.push_back(w.msg()); }
///     } collect;
///     gradc::WarningUtils::WarningHandlerGuard guard(&collect);
///
/// gradc warns where PyTorch's autograd warns and keeps errors for mistakes: reading
/// `.grad()` of a non-leaf that does not retain its gradient, enabling anomaly
/// detection, and the forward trace of a node that failed in anomaly mode.

#include <string>
#include <utility>

namespace gradc {

/// One warning: its message (LibTorch's `c10::Warning::msg()`).
class Warning {
public:
    explicit Warning(std::string message) : message_(std::move(message)) {}  ///< A warning with `message`.
    const std::string& msg() const { return message_; }  ///< The message.

private:
    std::string message_;
};

/// Receives warnings. The base class writes them to stderr.
class WarningHandler {
public:
    virtual ~WarningHandler() = default;
    /// Handles one warning (the default prints it to std::cerr once per message).
    virtual void process(const Warning& warning);
};

namespace WarningUtils {  // NOLINT: LibTorch's name (c10::WarningUtils)
/// The handler of the calling thread (the stderr handler unless one was set). Per thread,
/// as in c10: a handler set by one thread does not see another thread's warnings.
WarningHandler* get_warning_handler();
/// Sets the calling thread's handler; nullptr restores the stderr handler.
void set_warning_handler(WarningHandler* handler);

/// Installs a handler for its lifetime, then restores the previous one.
class WarningHandlerGuard {
public:
    /// Installs `handler` for the scope.
    explicit WarningHandlerGuard(WarningHandler* handler) : previous_(get_warning_handler()) {
        set_warning_handler(handler);
    }
    ~WarningHandlerGuard() { set_warning_handler(previous_); }
    WarningHandlerGuard(const WarningHandlerGuard&) = delete;
    WarningHandlerGuard& operator=(const WarningHandlerGuard&) = delete;

private:
    WarningHandler* previous_;
};
}  // namespace WarningUtils

using WarningUtils::get_warning_handler;
using WarningUtils::set_warning_handler;
using WarningUtils::WarningHandlerGuard;

/// Sends `message` to the calling thread's handler.
void warn(std::string message);

}  // namespace gradc
