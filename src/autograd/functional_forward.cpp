// jacobian / hessian with strategy forward_mode: column k of J[·][j] is the tangent of
// the outputs when input j carries the one-hot tangent e_k.
#include "functional_forward.hpp"

#include <string>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/forward_ad.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/indexing.hpp>

namespace gradc::autograd::functional::detail {

std::vector<tensor_list> jacobian_forward(const std::function<tensor_list(const tensor_list&)>& func,
                                          const tensor_list& inputs, const char* op) {
    if (inputs.empty()) throw Error(std::string("gradc: ") + op + ": expected at least one input tensor, got none");
    for (std::size_t j = 0; j < inputs.size(); ++j)
        if (!inputs[j].defined() || !is_differentiable_type(inputs[j].dtype()))
            throw Error(std::string("gradc: ") + op + ": input " + std::to_string(j) +
                        " must be a defined floating-point or complex tensor");
    namespace fw = forward_ad;
    std::vector<std::vector<tensor_list>> columns;  // [input][element] -> tangents of the outputs
    tensor_list outputs;
    for (std::size_t j = 0; j < inputs.size(); ++j) {
        std::vector<tensor_list> per_element;
        for (std::int64_t k = 0; k < inputs[j].numel(); ++k) {
            fw::dual_level level;
            // Only input j carries a tangent; the others have none, which forward mode
            // treats as zero.
            Tensor tangent = zeros_like(inputs[j]);
            {
                NoGradGuard no_grad;
                tangent.view({-1}).select(0, k).fill_(1.0);
            }
            tensor_list duals = inputs;
            duals[j] = fw::make_dual(inputs[j], tangent);
            tensor_list out = func(duals);
            tensor_list tangents;
            outputs.clear();
            for (std::size_t i = 0; i < out.size(); ++i) {
                if (!out[i].defined())
                    throw Error(std::string("gradc: ") + op + ": output " + std::to_string(i) + " of the function is undefined");
                auto unpacked = fw::unpack_dual(out[i]);
                outputs.push_back(unpacked.primal);
                tangents.push_back(unpacked.tangent.defined() ? unpacked.tangent.detach() : zeros_like(unpacked.primal));
            }
            per_element.push_back(std::move(tangents));
        }
        columns.push_back(std::move(per_element));
    }
    if (outputs.empty()) {  // every input is empty: evaluate once for the output shapes
        outputs = func(inputs);
    }
    std::vector<tensor_list> jac(outputs.size());
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        for (std::size_t j = 0; j < inputs.size(); ++j) {
            Shape shape = outputs[i].sizes();
            shape.insert(shape.end(), inputs[j].sizes().begin(), inputs[j].sizes().end());
            const std::int64_t n = inputs[j].numel();
            if (n == 0 || outputs[i].numel() == 0) {
                jac[i].push_back(zeros(shape, TensorOptions().dtype(outputs[i].dtype())));
                continue;
            }
            tensor_list cols;
            for (std::int64_t k = 0; k < n; ++k) cols.push_back(columns[j][k][i].reshape({-1}));
            // Columns stacked last: rows index the output element, columns the input element.
            jac[i].push_back(stack(cols, 1).view(shape));
        }
    }
    return jac;
}

}  // namespace gradc::autograd::functional::detail
