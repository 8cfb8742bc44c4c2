// GradBench's gmm: the log posterior of a Gaussian mixture model with a Wishart prior on
// its precision matrices (`objective`), and its gradient with respect to alpha, mu, q and
// l (`jacobian`), as GradBench's evals/gmm/README.md defines them.
//
// Dynamic mode, for any d, K and n: the K factors Q_k are gathered from
// [exp(q) | l | 0] by an index table built in prepare, all n×K Mahalanobis terms are one
// matrix product of the points' quadratic features (built in prepare) with the K Gram
// matrices, and β's logsumexp over the components is one reduction. The jacobian is
// reverse mode through that graph (autograd::grad).
#include "eval_registry.hpp"
#include "scalar_function.hpp"
#include "tensor_json.hpp"

#include <gradc/autograd.hpp>

#include <cmath>
#include <cstdint>
#include <memory>
#include <numbers>
#include <vector>

namespace gradbench::gmm {
namespace {

using gradc::Tensor;

const gradc::TensorOptions real_options = gradc::TensorOptions().dtype(gradc::kDouble);

/// One input of the eval, as tensors. The independent variables are leaves that require
/// grad when the jacobian is asked for.
struct Problem {
  std::int64_t d = 0, k = 0, n = 0;
  double m = 0, gamma = 0;
  double constant = 0;  ///< The terms of the log posterior that depend on no independent variable.
  Tensor features;      ///< [n, (d+1)(d+2)/2]: the quadratic features of each point (see make_features).
  Tensor q_index;       ///< [d·d]: where Q_k's row-major elements are in [exp(q_k) | l_k | 0].
  Tensor upper_index;   ///< [(d+1)(d+2)/2]: where the upper triangle's elements are in a row-major (d+1)².
  Tensor zero_column;   ///< [K, 1]: the 0 that the index table points at above the diagonal.
  Tensor alpha, mu, q, l;
};

/// The rows of a JSON array of arrays as a [rows, columns] double tensor.
Tensor matrix_from_json(const json& rows, std::int64_t columns, bool requires_grad) {
  std::vector<double> values;
  values.reserve(rows.size() * std::size_t(columns));
  for (const json& row : rows)
    for (const json& value : row) values.push_back(value.get<double>());
  return gradc::from_vector(values, {std::int64_t(rows.size()), columns},
                            gradc::TensorOptions(real_options).requires_grad(requires_grad));
}

/// log Γ_d(a), the multivariate gamma function of the Wishart density.
double log_multivariate_gamma(double a, std::int64_t d) {
  double sum = 0.25 * double(d * (d - 1)) * std::log(std::numbers::pi);
  for (std::int64_t j = 1; j <= d; ++j) sum += std::lgamma(a + 0.5 * double(1 - j));
  return sum;
}

/// Q_k's element (row, column) in row-major order, as a position in [exp(q_k) | l_k | 0]:
/// the diagonal is exp(q_k), l_k fills the strictly lower part column by column
/// (evals/gmm/README.md), and the upper part is the trailing 0.
Tensor make_q_index(std::int64_t d) {
  const std::int64_t lower_size = d * (d - 1) / 2;
  std::vector<double> positions(std::size_t(d * d), double(d + lower_size));
  for (std::int64_t row = 0; row < d; ++row) {
    positions[std::size_t(row * d + row)] = double(row);
    for (std::int64_t column = 0; column < row; ++column)
      positions[std::size_t(row * d + column)] =
          double(d + column * (2 * d - column - 1) / 2 + (row - column - 1));
  }
  return gradc::from_vector(positions, {d * d}, gradc::dtype(gradc::kLong));
}

/// The upper triangle (a ≤ b) of a row-major square matrix of size `size`, row by row,
/// as positions in its elements: the order of make_features' columns.
Tensor make_upper_index(std::int64_t size) {
  std::vector<double> positions;
  positions.reserve(std::size_t(size * (size + 1) / 2));
  for (std::int64_t a = 0; a < size; ++a)
    for (std::int64_t b = a; b < size; ++b) positions.push_back(double(a * size + b));
  return gradc::from_vector(positions, {std::int64_t(positions.size())}, gradc::dtype(gradc::kLong));
}

/// For each point x_i, with y = [x_i; −1], the products y_a·y_b (a < b) and ½y_a² (a = b)
/// in make_upper_index's order, so that their dot product with the upper triangle of a
/// symmetric G is ½ yᵀ G y.
Tensor make_features(const json& points, std::int64_t d) {
  const std::int64_t size = d + 1;
  std::vector<double> features;
  features.reserve(points.size() * std::size_t(size * (size + 1) / 2));
  std::vector<double> y(std::size_t(size), -1.0);
  for (const json& point : points) {
    for (std::int64_t j = 0; j < d; ++j) y[std::size_t(j)] = point[std::size_t(j)].get<double>();
    for (std::size_t a = 0; a < y.size(); ++a) {
      features.push_back(0.5 * y[a] * y[a]);
      for (std::size_t b = a + 1; b < y.size(); ++b) features.push_back(y[a] * y[b]);
    }
  }
  return gradc::from_vector(features, {std::int64_t(points.size()), size * (size + 1) / 2}, real_options);
}

std::shared_ptr<const Problem> read_problem(const json& input, bool differentiable) {
  auto problem = std::make_shared<Problem>();
  Problem& p = *problem;
  p.d = input.at("d").get<std::int64_t>();
  p.k = input.at("k").get<std::int64_t>();
  p.n = input.at("n").get<std::int64_t>();
  p.m = input.at("m").get<double>();
  p.gamma = input.at("gamma").get<double>();

  // The Wishart prior's degrees of freedom are d + m + 1 (evals/gmm/README.md).
  const double wishart_n = double(p.d) + p.m + 1;
  p.constant = -0.5 * double(p.n * p.d) * std::log(2 * std::numbers::pi) +
               double(p.k) * (wishart_n * double(p.d) * (std::log(p.gamma) - 0.5 * std::log(2.0)) -
                              log_multivariate_gamma(0.5 * wishart_n, p.d));

  p.features = make_features(input.at("x"), p.d);
  p.q_index = make_q_index(p.d);
  p.upper_index = make_upper_index(p.d + 1);
  p.zero_column = gradc::zeros({p.k, 1}, real_options);

  const std::vector<double> alpha = input.at("alpha").get<std::vector<double>>();
  p.alpha = gradc::from_vector(alpha, {p.k}, gradc::TensorOptions(real_options).requires_grad(differentiable));
  p.mu = matrix_from_json(input.at("mu"), p.d, differentiable);
  p.q = matrix_from_json(input.at("q"), p.d, differentiable);
  p.l = matrix_from_json(input.at("l"), p.d * (p.d - 1) / 2, differentiable);
  return problem;
}

/// exp(−64) < 2⁻⁹²: a term that far below its row's largest changes no sum of fewer than
/// 2³⁹ terms in double precision.
constexpr double negligible_log_weight = -64;

/// Σ_i logsumexp_k β_ik, with every β_ik more than 64 below its row's largest raised to that
/// floor: the value is the same in double precision, and those terms' gradients are exactly
/// zero instead of subnormal. Subnormal weights made the jacobian about 8× slower at
/// d = 64, K = 100: the backward's matrix product takes a microcode assist for every
/// operation on a subnormal.
Tensor sum_of_logsumexp(const Tensor& beta) {
  // The floors are constants for the gradient: a floored term's gradient is zero.
  const Tensor floors = gradc::amax(beta, {1}, true).detach() + negligible_log_weight;
  return gradc::logsumexp(gradc::maximum(beta, floors), {1}).sum();
}

/// The log posterior with the README's simplifications:
///   Σ_i logsumexp_k β_ik − n·logsumexp(α) + log prior + constant,
///   β_ik = α_k + Σ_j q_kj − ½‖Q_k (x_i − μ_k)‖².
Tensor log_posterior(const Problem& p) {
  const Tensor q_diagonal = gradc::exp(p.q);
  const Tensor packed = gradc::cat({q_diagonal, p.l, p.zero_column}, 1);
  const Tensor factors = gradc::index_select(packed, 1, p.q_index).view({p.k, p.d, p.d});
  // Q_k (x_i − μ_k) = A_k y_i with A_k = [Q_k | Q_k μ_k] and y_i = [x_i; −1], so
  // ½‖Q_k (x_i − μ_k)‖² = ½ y_iᵀ (A_kᵀA_k) y_i: the quadratic features of y_i (constant,
  // from prepare) times the upper triangle of A_kᵀA_k. All n×K terms are then one matrix
  // product whose result is [n, K]; no [n, K, d] tensor is made, forward or backward.
  const Tensor affine = gradc::cat({factors, gradc::bmm(factors, p.mu.unsqueeze(2))}, 2);
  const Tensor gram = gradc::bmm(affine.transpose(1, 2), affine).view({p.k, (p.d + 1) * (p.d + 1)});
  const Tensor half_mahalanobis = gradc::mm(p.features, gradc::index_select(gram, 1, p.upper_index).t());

  const Tensor log_determinants = p.q.sum({1});
  const Tensor beta = (p.alpha + log_determinants) - half_mahalanobis;
  const Tensor log_likelihood =
      sum_of_logsumexp(beta) - double(p.n) * gradc::logsumexp(p.alpha, {0});
  const Tensor frobenius = q_diagonal.square().sum() + p.l.square().sum();
  const Tensor log_prior = p.m * log_determinants.sum() - 0.5 * p.gamma * p.gamma * frobenius;
  return log_likelihood + log_prior + p.constant;
}

Prepared objective(const json& input) { return scalar_value(read_problem(input, false), log_posterior); }

Prepared jacobian(const json& input) {
  return reverse_gradient(
      read_problem(input, true), log_posterior,
      [](const Problem& p) { return gradc::tensor_list{p.alpha, p.mu, p.q, p.l}; },
      [](const gradc::tensor_list& g) {
        const Tensor alpha = g[0].contiguous();
        const double* a = alpha.data_ptr<double>();
        return json{{"alpha", std::vector<double>(a, a + alpha.numel())},
                    {"mu", rows_of(g[1])},
                    {"q", rows_of(g[2])},
                    {"l", rows_of(g[3])}};
      });
}

const bool registered = register_module("gmm", {{"objective", objective}, {"jacobian", jacobian}});

}  // namespace
}  // namespace gradbench::gmm
