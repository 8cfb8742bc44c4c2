#pragma once
/// \file
/// Custom autograd functions, as LibTorch's `torch::autograd::Function<T>`:
///
///     struct MyFn : gradc::autograd::Function<MyFn> {
///         static Tensor forward(AutogradContext* ctx, Tensor x, double k);
///         static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs);
///     };
///     Tensor y = MyFn::apply(x, 2.0);
///
/// `forward` runs with grad mode off and may take any arguments after the context
/// (Tensors, and each Tensor of a tensor_list argument, are the differentiable inputs;
/// anything else is passed through). It returns a Tensor or a tensor_list. `backward`
/// receives one gradient per forward output and returns one gradient per forward argument
/// (after ctx), a tensor_list argument counting as one argument per element, as in
/// LibTorch: an undefined Tensor means "no gradient", and is required for the non-Tensor
/// arguments; extra trailing undefined gradients are ignored. A backward written with differentiable
/// operations can be differentiated again (create_graph); a function that declares
/// `static constexpr bool once_differentiable = true;` refuses double backward with an error.
///
/// Forward-mode AD (forward_ad.hpp): a function may define
/// `static tensor_list jvp(AutogradContext* ctx, tensor_list tangents)`, which receives
/// one tangent per forward argument after ctx (zeros for a Tensor without one, unless
/// set_materialize_grads(false); undefined for the other arguments) and returns one
/// tangent per output. Without it the JVP is derived from `backward` (slower, and
/// impossible for a once-differentiable function, which then throws). Tangents are not
/// propagated inside `forward`.
///
/// State for backward goes in the context: `save_for_backward` (tensors, version-checked by
/// `get_saved_variables`) and `saved_data` (anything else). Do not put tensors that are
/// outputs of this function into `saved_data`: the node would then own itself.

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <vector>

#include <gradc/autograd/forward_ad.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/ivalue.hpp>
#include <gradc/autograd/node.hpp>
#include <gradc/autograd/saved_variable.hpp>
#include <gradc/autograd/tensor.hpp>

namespace gradc::autograd {

class CustomNodeBase;

/// A half-open range of forward argument positions [first, second), as LibTorch's.
using IndexRange = std::pair<std::size_t, std::size_t>;

/// What forward and backward of a custom function share (LibTorch's AutogradContext).
class AutogradContext {
public:
    AutogradContext() = default;
    AutogradContext(const AutogradContext&) = delete;
    AutogradContext& operator=(const AutogradContext&) = delete;

    /// Non-tensor state for backward (LibTorch's `ska::flat_hash_map<std::string, IValue>`).
    std::unordered_map<std::string, IValue> saved_data;

    /// Tensors backward will need (inputs, outputs or neither). Call once, in forward.
    void save_for_backward(tensor_list to_save);
    /// The saved tensors, checked against in-place modification since they were saved.
    /// Throws the retain_graph error after the graph was freed.
    tensor_list get_saved_variables() const;
    /// Declares that forward modified these inputs in place (they must be inputs).
    void mark_dirty(const tensor_list& inputs);
    /// Declares outputs that have no gradient (e.g. indices); their grad_outputs are zeros.
    void mark_non_differentiable(const tensor_list& outputs);
    /// With `true` (the default) undefined output gradients reach backward as zeros;
    /// with `false` they stay undefined.
    void set_materialize_grads(bool value) { materialize_grads_ = value; }
    /// Whether undefined output gradients reach backward as zeros (set_materialize_grads).
    bool materialize_grads() const { return materialize_grads_; }
    /// In backward: whether the gradient of the tensor input `index` is needed in the pass
    /// that runs (false for an input autograd::grad does not lead to). As in LibTorch,
    /// `index` counts the tensor inputs only (the edges): for forward(ctx, a, k, x) with a
    /// double k, x is input 1.
    bool needs_input_grad(std::size_t index) const;
    /// Whether any tensor input in the half-open ranges [first, second) needs a gradient
    /// (LibTorch's form, for functions whose inputs come in groups).
    bool needs_input_grad(std::initializer_list<IndexRange> ranges) const;

private:
    friend class CustomNodeBase;
    friend struct CustomFunctionCall;

    tensor_list to_save_;
    std::vector<SavedVariable> saved_;
    bool saved_called_ = false;
    bool materialize_grads_ = true;
    std::vector<const TensorImpl*> dirty_;
    std::vector<const TensorImpl*> non_differentiable_;
    std::vector<bool> needs_input_grad_;  // per tensor input (next edge)
    std::weak_ptr<Node> node_;
    std::vector<int> saved_output_;  // per saved_ entry: the output it is, or -1 (forward mode)
};

/// The backward node of a custom function; `T::backward` is reached through `call_backward`.
class CustomNodeBase : public Node {
public:
    /// A node named `name` for a custom function's backward.
    CustomNodeBase(std::string name, std::vector<bool> is_tensor_arg, bool once_differentiable);
    ~CustomNodeBase() override;
    bool runs_without_gradients() const override { return true; }
    std::string name() const override { return name_; }
    tensor_list apply(tensor_list&& grad_outputs) override;
    void release_variables() override;
    std::vector<std::pair<std::string, SavedVariable*>> saved_variable_entries() override;
    AutogradContext& context() { return ctx_; }  ///< The context of the forward call.

protected:
    /// Calls the function's static backward.
    virtual tensor_list call_backward(AutogradContext* ctx, tensor_list grad_outputs) = 0;

private:
    friend struct CustomFunctionCall;
    std::string name_;
    AutogradContext ctx_;
    std::vector<bool> is_tensor_arg_;  // per forward argument after ctx (per element of a tensor_list)
    bool once_differentiable_;
};

/// Non-template machinery of Function<T>::apply (function.cpp).
struct CustomFunctionCall {
    /// Drops gradients past `expected` when all of them are undefined: LibTorch accepts
    /// them (the C++ tutorial's LinearFunction returns a bias gradient also when called
    /// without the defaulted bias); a defined extra one stays and is reported.
    static void drop_extra_undefined(tensor_list& grads, std::size_t expected);
    /// Readable type name: "ns::MyFn" → "MyFn".
    static std::string short_name(const char* mangled);
    /// Before forward: edges and needs_input_grad. `node` is null when nothing is recorded.
    static void prepare(const std::shared_ptr<CustomNodeBase>& node, AutogradContext* ctx, const tensor_list& inputs, bool record);
    /// After forward: history of the outputs, dirty inputs, saved tensors. Returns the
    /// outputs the caller sees (an input returned as is becomes a new alias).
    static tensor_list wrap_outputs(const std::shared_ptr<CustomNodeBase>& node, AutogradContext* ctx,
                                    const tensor_list& inputs, tensor_list outputs);
    /// The function's side of a JVP or VJP, as `T::jvp` / `T::backward`.
    using Formula = tensor_list (*)(AutogradContext*, tensor_list);
    /// Whether forward mode has work: a dual level is active and an input has a tangent.
    static bool has_tangents(const tensor_list& inputs);
    /// After wrap_outputs: the outputs' tangents from `jvp`, or (null) by transposing
    /// `backward` (custom_forward_ad.cpp).
    static void forward_ad(const std::string& name, AutogradContext* ctx, const std::vector<bool>& is_tensor_arg,
                           const tensor_list& inputs, const tensor_list& outputs, Formula jvp, Formula backward,
                           bool once_differentiable);
};

namespace detail_custom {
template <class A>
constexpr bool is_tensor_arg = std::is_same_v<std::decay_t<A>, Tensor>;
template <class A>
constexpr bool is_tensor_list_arg = std::is_same_v<std::decay_t<A>, tensor_list>;

template <class T, class = void>
struct once_flag : std::false_type {};
template <class T>
struct once_flag<T, std::void_t<decltype(T::once_differentiable)>> : std::bool_constant<T::once_differentiable> {};

template <class T, class = void>
struct has_jvp : std::false_type {};
template <class T>
struct has_jvp<T, std::void_t<decltype(T::jvp(static_cast<AutogradContext*>(nullptr), std::declval<tensor_list>()))>>
    : std::true_type {};

template <class T>
tensor_list call_jvp(AutogradContext* ctx, tensor_list tangents) {
    return T::jvp(ctx, std::move(tangents));
}
template <class T>
tensor_list call_backward(AutogradContext* ctx, tensor_list grads) {
    return T::backward(ctx, std::move(grads));
}

template <class T>
class CustomNode final : public CustomNodeBase {
public:
    using CustomNodeBase::CustomNodeBase;

protected:
    tensor_list call_backward(AutogradContext* ctx, tensor_list grad_outputs) override {
        return T::backward(ctx, std::move(grad_outputs));
    }
};
}  // namespace detail_custom

/// CRTP base of a custom function `T` (see the top of this file).
template <class T>
struct Function {
    /// Runs `T::forward(ctx, args...)` and records its backward: LibTorch's `MyFunction::apply(args...)`.
    template <class... Args>
    static auto apply(Args&&... args) {
        using Result = decltype(T::forward(static_cast<AutogradContext*>(nullptr), std::forward<Args>(args)...));
        static_assert(std::is_same_v<Result, Tensor> || std::is_same_v<Result, tensor_list>,
                      "gradc: a custom function's forward must return Tensor or tensor_list");
        tensor_list inputs;
        std::vector<bool> is_tensor;  // per argument slot: a tensor_list has one per element
        (collect(inputs, is_tensor, args), ...);
        bool record = GradMode::is_enabled();
        if (record) {
            bool any = false;
            for (const auto& t : inputs) any = any || (t.defined() && t.requires_grad());
            record = any;
        }
        const bool has_tangents = CustomFunctionCall::has_tangents(inputs);
        const std::vector<bool> is_tensor_arg = has_tangents ? is_tensor : std::vector<bool>{};
        std::shared_ptr<CustomNodeBase> node;
        AutogradContext local;
        AutogradContext* ctx = &local;
        if (record) {
            node = std::make_shared<detail_custom::CustomNode<T>>(
                CustomFunctionCall::short_name(typeid(T).name()) + "Backward", std::move(is_tensor),
                detail_custom::once_flag<T>::value);
            ctx = &node->context();
        }
        CustomFunctionCall::prepare(node, ctx, inputs, record);
        Result out;
        {
            AutoGradMode no_grad(false);
            forward_ad::detail::IgnoreTangents no_tangents;
            out = T::forward(ctx, std::forward<Args>(args)...);
        }
        tensor_list outputs;
        if constexpr (std::is_same_v<Result, Tensor>) {
            outputs = CustomFunctionCall::wrap_outputs(node, ctx, inputs, tensor_list{std::move(out)});
        } else {
            outputs = CustomFunctionCall::wrap_outputs(node, ctx, inputs, std::move(out));
        }
        if (has_tangents) {
            CustomFunctionCall::Formula jvp = nullptr;
            if constexpr (detail_custom::has_jvp<T>::value) jvp = &detail_custom::call_jvp<T>;
            CustomFunctionCall::forward_ad(CustomFunctionCall::short_name(typeid(T).name()), ctx, is_tensor_arg, inputs,
                                           outputs, jvp, &detail_custom::call_backward<T>, detail_custom::once_flag<T>::value);
        }
        if constexpr (std::is_same_v<Result, Tensor>) {
            return outputs[0];
        } else {
            return outputs;
        }
    }

private:
    template <class A>
    static void collect(tensor_list& inputs, std::vector<bool>& is_tensor, const A& a) {
        if constexpr (detail_custom::is_tensor_arg<A>) {
            inputs.push_back(a);
            is_tensor.push_back(true);
        } else if constexpr (detail_custom::is_tensor_list_arg<A>) {
            inputs.insert(inputs.end(), a.begin(), a.end());
            is_tensor.insert(is_tensor.end(), a.size(), true);
        } else {
            is_tensor.push_back(false);
        }
    }
};

}  // namespace gradc::autograd
