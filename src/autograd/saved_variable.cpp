// Tensors saved for backward, with the version check of the autograd notes.
#include <gradc/autograd/function.hpp>
#include <gradc/autograd/node.hpp>
#include <gradc/autograd/saved_variable.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "internal.hpp"

namespace gradc::autograd {

SavedVariable::SavedVariable(const Tensor& t, bool is_output) {
    if (!t.defined()) return;
    if (t.is_inference())
        throw Error("gradc: inference tensors cannot be saved for backward: " + detail::describe(t) +
                    " was created in InferenceMode. To work around this, make a clone() to get a normal tensor "
                    "and use it in autograd.");
    defined_ = true;
    saved_version_ = t._version();
    is_output_ = is_output;
    requires_grad_ = t.requires_grad();
    output_nr_ = t.output_nr();
    is_leaf_ = t.is_leaf();
    // An output is kept as a plain alias: holding the tensor itself would make the node
    // own its own output, whose grad_fn owns the node.
    data_ = is_output ? t.detach() : t;
}

void SavedVariable::reset_data() {
    if (!defined_) return;
    data_ = Tensor();
    freed_ = true;
}

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& saved_for) const {
    if (freed_)
        throw Error(
            "gradc: trying to backward through the graph a second time (or directly access saved tensors after "
            "they have already been freed). Saved intermediate values of the graph are freed when you call "
            "backward() or autograd::grad(). Specify retain_graph=true if you need to backward through the graph "
            "a second time or if you need to access saved tensors after calling backward.");
    if (!defined_) return Tensor();
    const std::uint32_t current = data_._version();
    if (current != saved_version_) {
        std::string which;
        if (is_output_ && saved_for)
            which = ", which is output " + std::to_string(output_nr_) + " of " + saved_for->name() + ",";
        else if (!is_leaf_ && data_.grad_fn())
            which = ", which is output " + std::to_string(data_.output_nr()) + " of " + data_.grad_fn()->name() + ",";
        throw Error("gradc: one of the tensors needed for gradient computation has been modified by an in-place "
                    "operation: " + detail::describe(data_) + which + " is at version " + std::to_string(current) +
                    "; expected version " + std::to_string(saved_version_) + " instead. It was saved by " +
                    (saved_for ? saved_for->name() : std::string("a backward node")) +
                    ". Hint: modify a clone() instead, or make the in-place operation out-of-place.");
    }
    if (!is_output_) return data_;
    Tensor out = data_.detach();
    if (requires_grad_ && saved_for) set_history(out, saved_for, output_nr_);
    return out;
}

}  // namespace gradc::autograd
