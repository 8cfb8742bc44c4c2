// make_variable and UndefinedGrad (include/gradc/autograd/basic_ops.hpp).
#include <gradc/autograd/basic_ops.hpp>
#include <gradc/autograd/function.hpp>
#include <gradc/autograd/grad_mode.hpp>

#include "internal.hpp"

namespace gradc::autograd {

Tensor make_variable(const Tensor& data, bool requires_grad) {
    detail::check_defined(data, "make_variable");
    Tensor v = data.variable_data();
    if (requires_grad) v.set_requires_grad(true);
    return v;
}

tensor_list UndefinedGrad::apply(tensor_list&& inputs) const {
    tensor_list defined, outputs(inputs.size());
    for (const auto& in : inputs)
        if (in.defined()) defined.push_back(in);
    tensor_list copies;
    {
        NoGradGuard no_grad;
        for (const auto& in : defined) copies.push_back(in.clone());
    }
    record("UndefinedGrad", defined, copies, {}, [n = defined.size()](const tensor_list&, const BackwardContext&) {
        return tensor_list(n);
    });
    for (std::size_t i = 0, j = 0; i < inputs.size(); ++i)
        if (inputs[i].defined()) outputs[i] = copies[j++];
    return outputs;
}

}  // namespace gradc::autograd
