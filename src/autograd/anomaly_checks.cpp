// Anomaly detection at work (include/gradc/autograd/anomaly_mode.hpp): the forward stack
// recorded by each node while it is enabled, and the checks the engine runs around a
// node's backward (PyTorch's anomaly_mode.cpp and the engine's "Error detected in ..."
// report). Both read the node whose backward runs on this thread, so they share a file.
#include <cstdlib>
#include <memory>
#include <string>

#include <cxxabi.h>
#include <execinfo.h>

#include <gradc/autograd/anomaly_mode.hpp>
#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/node.hpp>
#include <gradc/autograd/reduction.hpp>
#include <gradc/autograd/warning.hpp>

#include "anomaly_checks.hpp"
#include "anomaly_trace.hpp"

namespace gradc::autograd {

namespace {
// The node whose backward runs on this thread in anomaly mode: nodes created meanwhile
// (create_graph) were induced by it.
thread_local const Node* running_node = nullptr;

// "  #3 gradc::exp(gradc::Tensor const&)+0x2a (libgradc.so.0)": c10::get_backtrace's
// layout. Functions without an exported symbol show as the module and offset; link the
// program with -rdynamic to see their names.
std::string frame_line(int index, const char* symbol) {
    std::string s(symbol);
    const auto open = s.find('('), plus = s.find('+', open == std::string::npos ? 0 : open);
    const auto close = s.find(')', plus == std::string::npos ? 0 : plus);
    std::string module = open == std::string::npos ? s : s.substr(0, open);
    if (const auto slash = module.rfind('/'); slash != std::string::npos) module = module.substr(slash + 1);
    std::string function = "???", offset;
    if (open != std::string::npos && plus != std::string::npos && close != std::string::npos && plus > open + 1) {
        const std::string mangled = s.substr(open + 1, plus - open - 1);
        int status = 0;
        char* demangled = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
        function = status == 0 && demangled ? demangled : mangled;
        std::free(demangled);
        offset = s.substr(plus, close - plus);
    } else if (open != std::string::npos && close != std::string::npos) {
        offset = s.substr(open + 1, close - open - 1);
    }
    return "  #" + std::to_string(index) + " " + function + offset + " (" + module + ")\n";
}

// The stack of the calling thread without the `skip` innermost frames (the recording
// itself).
std::string capture_trace(int skip) {
    void* frames[64];
    const int n = backtrace(frames, 64);
    char** symbols = backtrace_symbols(frames, n);
    std::string out;
    for (int i = skip; i < n; ++i) out += frame_line(i - skip, symbols ? symbols[i] : "???");
    std::free(symbols);
    return out;
}

bool has_nan(const Tensor& t) {
    if (!t.defined() || !(t.is_floating_point() || t.is_complex())) return false;
    NoGradGuard no_grad;
    return gradc::any(gradc::isnan(t.detach()));
}
}  // namespace

namespace anomaly {

std::shared_ptr<const AnomalyMetadata> record_metadata() {
    auto m = std::make_shared<AnomalyMetadata>();
    // Frames: capture_trace, record_metadata, Node::Node.
    m->forward_trace = capture_trace(3);
    if (running_node) {
        m->parent_name = running_node->name();
        m->parent = running_node->anomaly_metadata();
    }
    return m;
}

std::vector<std::string> forward_report(const Node& node) {
    const auto& m = node.anomaly_metadata();
    if (!m) return {};
    std::vector<std::string> parts{"Error detected in " + node.name() +
                                   ". Traceback of forward call that caused the error:\n" + m->forward_trace};
    for (const AnomalyMetadata* p = m.get(); p->parent; p = p->parent.get())
        parts.push_back("Previous calculation was induced by " + p->parent_name +
                        ". Traceback of forward call that induced the previous calculation:\n" + p->parent->forward_trace);
    return parts;
}

tensor_list run_checked(Node& node, tensor_list&& grad_outputs) {
    const Node* previous = running_node;
    running_node = &node;
    struct Restore {
        const Node* previous;
        ~Restore() { running_node = previous; }
    } restore{previous};
    try {
        tensor_list grads = node.run(std::move(grad_outputs));
        if (AnomalyMode::should_check_nan())
            for (std::size_t i = 0; i < grads.size(); ++i)
                if (has_nan(grads[i]))
                    throw Error("gradc: Function '" + node.name() + "' returned nan values in its " + std::to_string(i) +
                                "th output.");
        return grads;
    } catch (const Error& e) {
        const std::vector<std::string> report = forward_report(node);
        if (report.empty()) throw;
        std::string message = e.what();
        for (const std::string& part : report) {
            warn(part);
            message += "\n\n" + part;
        }
        throw Error(message);
    }
}

}  // namespace anomaly

}  // namespace gradc::autograd
