// The GMM objective and gradient with gradc's dynamic mode: gmm_tensors.hpp with
// gradc::Tensor.
#include <gradc/autograd.hpp>

#include "gmm_peers.hpp"
#include "gmm_tensors.hpp"

namespace {

struct gradc_lib {
    static gradc::Tensor make(const std::vector<double>& v, gradc::Shape sizes, bool grad) {
        return gradc::from_vector(v, sizes, gradc::TensorOptions().dtype(gradc::kDouble).requires_grad(grad));
    }
    static gradc::Tensor make_index(const std::vector<std::int64_t>& v, gradc::Shape sizes) {
        return gradc::from_vector(std::vector<double>(v.begin(), v.end()), sizes,
                                  gradc::TensorOptions().dtype(gradc::kLong));
    }
    static gradc::Tensor zeros(gradc::Shape sizes) {
        return gradc::zeros(sizes, gradc::TensorOptions().dtype(gradc::kDouble));
    }
    static gradc::Tensor cat(std::initializer_list<gradc::Tensor> parts, std::int64_t dim) {
        return gradc::cat(gradc::tensor_list(parts), dim);
    }
};

}  // namespace

double gmm_dynamic(const gmm_point_set& x, const gmm_parameters& p, std::vector<double>* grad) {
    gradc::set_num_threads(1);
    return gmm_tensors::evaluate<gradc_lib, gmm_d, gmm_K>(x, p.alphas, p.means, p.icf, grad);
}
