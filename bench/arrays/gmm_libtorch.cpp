// The GMM objective and gradient with LibTorch (one thread): gmm_tensors.hpp with
// LibTorch's tensors.
#include <torch/torch.h>

#include "gmm_peers.hpp"
#include "gmm_tensors.hpp"

namespace {

struct torch_lib {
    static torch::Tensor make(const std::vector<double>& v, std::vector<std::int64_t> sizes, bool grad) {
        return torch::from_blob(const_cast<double*>(v.data()), sizes, torch::kFloat64).clone().set_requires_grad(grad);
    }
    static torch::Tensor make_index(const std::vector<std::int64_t>& v, std::vector<std::int64_t> sizes) {
        return torch::from_blob(const_cast<std::int64_t*>(v.data()), sizes, torch::kInt64).clone();
    }
    static torch::Tensor zeros(std::vector<std::int64_t> sizes) { return torch::zeros(sizes, torch::kFloat64); }
    static torch::Tensor cat(std::initializer_list<torch::Tensor> parts, std::int64_t dim) {
        return torch::cat(std::vector<torch::Tensor>(parts), dim);
    }
};

}  // namespace

double gmm_libtorch(const gmm_point_set& x, const gmm_parameters& p, std::vector<double>* grad) {
    static const bool one_thread = [] {
        at::set_num_threads(1);
        return true;
    }();
    (void)one_thread;
    return gmm_tensors::evaluate<torch_lib, gmm_d, gmm_K>(x, p.alphas, p.means, p.icf, grad);
}
