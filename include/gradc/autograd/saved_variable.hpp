#pragma once
/// A tensor saved for backward (autograd notes, "Saved tensors"). It remembers the version
/// of the tensor when saved and refuses to be used if an in-place operation changed it
/// since. A saved *output* of the node that saves it is kept without its grad_fn (the
/// node would otherwise own itself through the tensor) and is given it back on unpack.

#include <cstdint>
#include <memory>
#include <string>

#include <gradc/autograd/tensor.hpp>

namespace gradc::autograd {

class Node;

class SavedVariable {
public:
    SavedVariable() = default;
    /// `is_output`: `t` is an output of the node that saves it.
    SavedVariable(const Tensor& t, bool is_output);

    /// The saved tensor. `saved_for` is the node that saved it (used to restore the
    /// grad_fn of a saved output and to name the node in errors).
    Tensor unpack(const std::shared_ptr<Node>& saved_for) const;
    /// Drops the data; a later unpack throws the retain_graph error.
    void reset_data();
    bool was_freed() const { return freed_; }
    bool defined() const { return defined_; }

private:
    Tensor data_;                 // for outputs: an alias without autograd metadata
    std::uint32_t saved_version_ = 0;
    std::uint32_t output_nr_ = 0;
    bool is_output_ = false;
    bool is_leaf_ = false;
    bool requires_grad_ = false;
    bool defined_ = false;
    bool freed_ = false;
};

}  // namespace gradc::autograd
