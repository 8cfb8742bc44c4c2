// GradBench's ba: bundle adjustment (evals/ba/README.md in GradBench; the primal is
// cpp/gradbench/evals/ba.hpp there).
//
// Dynamic mode, vectorised over the p observations: every camera, point and weight
// parameter an observation reads is gathered into its own contiguous [p] tensor, and the
// reprojection of all observations is one fused operation on them (reprojection() below).
//
// jacobian: each observation's two residuals depend only on that observation's gathered
// copies of the 11 camera, 3 point and 1 weight parameters, so one backward pass seeded
// with ones on all p x-residuals gives every observation's x row of the 2 × 15 block at
// once, and a second pass gives the y rows. Forward mode would need 15 directions, and
// make_dual wants a tangent of the primal's shape, so carrying them as an extra dimension
// computes every primal 15 times: with the formula as separate operations that took
// 15–18× the time of the two backward passes (ba1, ba5).
#include "eval_registry.hpp"

#include <gradc/autograd.hpp>
#include <gradc/gradc.hpp>
#include <gradc/parallel/threads.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace gradbench::ba {
namespace {

using gradc::Tensor;

// An observation's parameters in the column order of its Jacobian block (ba.hpp's
// SparseMat): the camera [r1 r2 r3 C1 C2 C3 f u0 v0 k1 k2], the point, the weight.
constexpr int camera_size = 11;
constexpr int point = camera_size;
constexpr int weight = point + 3;
constexpr int block_width = weight + 1;

using ObservationParameters = std::array<Tensor, block_width>;

struct Problem {
  std::int64_t cameras = 0, points = 0, observations = 0;
  Tensor camera_values;          // [11, n]: a row per parameter, so gathered rows are contiguous
  Tensor point_values;           // [3, m]
  Tensor weights;                // [p]
  Tensor features;               // [2, p]
  Tensor camera_of_observation;  // int64 [p]
  Tensor point_of_observation;   // int64 [p]
};

// The input is one camera, point, weight and feature; the eval README asks the tool to
// duplicate them (n cameras, m points, p observations) exactly as ba.hpp's from_json does,
// observation i seeing camera i mod n and point i mod m.
Problem read_problem(const json& input) {
  Problem problem;
  problem.cameras = input.at("n").get<std::int64_t>();
  problem.points = input.at("m").get<std::int64_t>();
  problem.observations = input.at("p").get<std::int64_t>();
  const std::int64_t n = problem.cameras, m = problem.points, p = problem.observations;

  // Each parameter repeated `count` times, one row per parameter.
  auto repeated_rows = [](const std::vector<double>& values, std::int64_t count) {
    std::vector<double> rows;
    rows.reserve(values.size() * std::size_t(count));
    for (double value : values) rows.insert(rows.end(), std::size_t(count), value);
    return gradc::from_vector(rows, {std::int64_t(values.size()), count});
  };
  problem.camera_values = repeated_rows(input.at("cam").get<std::vector<double>>(), n);
  problem.point_values = repeated_rows(input.at("x").get<std::vector<double>>(), m);
  problem.weights = gradc::full(p, input.at("w").get<double>());
  problem.features = repeated_rows(input.at("feat").get<std::vector<double>>(), p);

  std::vector<std::int64_t> camera_of_observation(static_cast<std::size_t>(p));
  std::vector<std::int64_t> point_of_observation(static_cast<std::size_t>(p));
  for (std::int64_t i = 0; i < p; ++i) {
    camera_of_observation[std::size_t(i)] = i % n;
    point_of_observation[std::size_t(i)] = i % m;
  }
  problem.camera_of_observation = gradc::tensor_i64(camera_of_observation, {p});
  problem.point_of_observation = gradc::tensor_i64(point_of_observation, {p});
  return problem;
}

// One gather per parameter row (gradc's index_select copies each selected slice through
// its own view, far slower than gather's loop over elements when the slices are numbers).
ObservationParameters gather_parameters(const Problem& problem) {
  ObservationParameters parameters;
  for (int k = 0; k < camera_size; ++k)
    parameters[k] = gradc::gather(problem.camera_values[k], 0, problem.camera_of_observation);
  for (int k = 0; k < 3; ++k)
    parameters[point + k] = gradc::gather(problem.point_values[k], 0, problem.point_of_observation);
  parameters[weight] = problem.weights;
  return parameters;
}

struct Residuals {
  Tensor x, y;
};

// ba.hpp's computeReprojError of one observation as a compiled formula, run over all p
// observations as one operation of the dynamic graph (gradc::autograd::fuse): one pass
// over memory forward and one per backward pass, where the same formula as separate
// tensor operations makes about 60 forward and 100 backward operations on [p] tensors.
// Measured at p = 1.26 million (ba14, CPU time): forward 27 ms fused against 170 ms
// unfused, a backward pass 63 ms against 270 ms. The features are inputs without
// derivatives (wrt names the 15 parameters, in the block's column order).
const auto& reprojection() {
  static const auto fused = [] {
    auto [r1, r2, r3, c1, c2, c3, f, u0, v0, k1, k2, x1, x2, x3, w, feature_x, feature_y] = gradc::variables<17>();
    // Named, so that the subexpressions holding them are shared rather than copied.
    const auto zero = gradc::constant([] { return 0.0; });
    const auto one = gradc::constant([] { return 1.0; });

    // rodrigues_rotate_point of p = X − C with ba.hpp's unit axis rot / θ folded into the
    // coefficients: p cos θ + (rot × p) sin θ / θ + rot (rot · p) (1 − cos θ) / θ². At
    // θ = 0 ba.hpp takes the branch p + rot × p, the coefficients 1, 1, 0; θ² is replaced
    // by 1 there so that the branch not taken, and its derivatives, stay finite.
    const auto angle_squared = r1 * r1 + r2 * r2 + r3 * r3;
    const auto rotated = angle_squared != zero;
    const auto safe_angle_squared = where(rotated, angle_squared, one);
    const auto angle = sqrt(safe_angle_squared);
    const auto cos_coefficient = where(rotated, cos(angle), one);
    const auto cross_coefficient = where(rotated, sin(angle) / angle, one);
    const auto axis_coefficient = where(rotated, (one - cos(angle)) / safe_angle_squared, zero);
    const auto p1 = x1 - c1;
    const auto p2 = x2 - c2;
    const auto p3 = x3 - c3;
    const auto axis_term = (r1 * p1 + r2 * p2 + r3 * p3) * axis_coefficient;
    const auto camera_x = p1 * cos_coefficient + (r2 * p3 - r3 * p2) * cross_coefficient + r1 * axis_term;
    const auto camera_y = p2 * cos_coefficient + (r3 * p1 - r1 * p3) * cross_coefficient + r2 * axis_term;
    const auto camera_z = p3 * cos_coefficient + (r1 * p2 - r2 * p1) * cross_coefficient + r3 * axis_term;

    // project: perspective division, radial distortion, focal length, principal point.
    const auto projected_x = camera_x / camera_z;
    const auto projected_y = camera_y / camera_z;
    const auto radius_squared = projected_x * projected_x + projected_y * projected_y;
    const auto scale = f * (one + radius_squared * (k1 + k2 * radius_squared));
    return gradc::autograd::fuse(
        gradc::compile(w * (projected_x * scale + u0 - feature_x), w * (projected_y * scale + v0 - feature_y),
                       gradc::wrt(r1, r2, r3, c1, c2, c3, f, u0, v0, k1, k2, x1, x2, x3, w)),
        "reprojection");
  }();
  return fused;
}

Residuals reprojection_error(const ObservationParameters& parameters, const Problem& problem) {
  gradc::tensor_list inputs(parameters.begin(), parameters.end());
  inputs.push_back(problem.features[0]);
  inputs.push_back(problem.features[1]);
  const gradc::tensor_list residuals = reprojection()(inputs);
  return {residuals[0], residuals[1]};
}

// ba.hpp's computeZachWeightError.
Tensor weight_error(const Tensor& w) { return 1.0 - w.square(); }

Prepared objective(const json& input) {
  auto problem = std::make_shared<const Problem>(read_problem(input));
  auto residuals = std::make_shared<Residuals>();
  auto weight_residuals = std::make_shared<Tensor>();
  auto evaluate = [=] {
    gradc::NoGradGuard no_graph;
    const ObservationParameters parameters = gather_parameters(*problem);
    *residuals = reprojection_error(parameters, *problem);
    *weight_residuals = weight_error(parameters[weight]);
  };
  // The eval README's BAObjectiveOutput, compressed as ba.hpp's to_json: the first
  // observation's residuals and the first weight residual, with their counts.
  auto output = [=] {
    const std::int64_t p = problem->observations;
    return json{{"reproj_error",
                 {{"elements", {residuals->x[0].item<double>(), residuals->y[0].item<double>()}}, {"repeated", p}}},
                {"w_err", {{"element", (*weight_residuals)[0].item<double>()}, {"repeated", p}}}};
  };
  return {evaluate, output};
}

// The sparsity pattern of ba.hpp's SparseMat (compressed rows): 2p reprojection rows of
// 15 entries (the observation's camera, point and weight columns), then p weight rows of
// one entry. It depends only on the observations' indices, so it is built once here.
struct SparsityPattern {
  std::vector<int> rows, cols;
};

SparsityPattern sparsity_pattern(const Problem& problem) {
  const std::int64_t n = problem.cameras, m = problem.points, p = problem.observations;
  const int point_columns = int(camera_size * n), weight_columns = int(camera_size * n + 3 * m);
  SparsityPattern pattern;
  pattern.rows.reserve(std::size_t(3 * p + 1));
  pattern.cols.reserve(std::size_t((2 * block_width + 1) * p));
  pattern.rows.push_back(0);
  for (std::int64_t i = 0; i < p; ++i) {
    const int camera = int(i % n), point_index = int(i % m);
    for (int row = 0; row < 2; ++row) {
      pattern.rows.push_back(pattern.rows.back() + block_width);
      for (int k = 0; k < camera_size; ++k) pattern.cols.push_back(camera_size * camera + k);
      for (int k = 0; k < 3; ++k) pattern.cols.push_back(point_columns + 3 * point_index + k);
      pattern.cols.push_back(weight_columns + int(i));
    }
  }
  for (std::int64_t i = 0; i < p; ++i) {
    pattern.rows.push_back(pattern.rows.back() + 1);
    pattern.cols.push_back(weight_columns + int(i));
  }
  return pattern;
}

// The values of the SparseMat in its order: per observation its x row then its y row of
// 15 entries ([p, 2, 15]), then the p weight rows, as one list made inside the timed
// function, as the hand-written tool makes its own (the join copies the 31p values once
// more: about a fifth of the Jacobian's time at ba14). The sparsity pattern (rows, cols)
// depends only on the sizes and is made once per input.

Prepared jacobian(const json& input) {
  auto problem = std::make_shared<const Problem>(read_problem(input));
  auto pattern = std::make_shared<const SparsityPattern>(sparsity_pattern(*problem));
  const std::int64_t p = problem->observations;
  auto seed = std::make_shared<const Tensor>(gradc::ones(p));
  auto values = std::make_shared<Tensor>();
  auto evaluate = [=] {
    ObservationParameters parameters = gather_parameters(*problem);
    for (Tensor& parameter : parameters) parameter = parameter.detach().requires_grad_();
    const gradc::tensor_list inputs(parameters.begin(), parameters.end());
    const Residuals residuals = reprojection_error(parameters, *problem);
    const Tensor weight_residuals = weight_error(parameters[weight]);

    // Row by row, the derivatives of the residual with respect to the block's 15
    // parameters (the fused node gives zeros for the one the residual does not read: u0
    // for y, v0 for x).
    gradc::tensor_list block_columns = gradc::autograd::grad({residuals.x}, inputs, {*seed}, /*retain_graph=*/true);
    const gradc::tensor_list y_columns = gradc::autograd::grad({residuals.y}, inputs, {*seed});
    block_columns.insert(block_columns.end(), y_columns.begin(), y_columns.end());
    const Tensor weight_column = gradc::autograd::grad({weight_residuals}, {parameters[weight]}, {*seed})[0];

    // Stacked (contiguous copies), then transposed in one copy that reads 30 streams and
    // writes one; stacking along the last dimension instead writes each column with a
    // stride of 30 and sweeps the whole array once per column: 7× slower at p = 1.26 M.
    gradc::NoGradGuard no_graph;
    const Tensor blocks = gradc::stack(block_columns).view({2, block_width, p}).permute({2, 0, 1}).contiguous();
    *values = gradc::cat({blocks.view({-1}), weight_column}, 0);
  };
  // The eval README's BAJacobianOutput: the first 30 entries of each list (fewer if the
  // list is shorter: ba.hpp's to_json would read past its end) and the last.
  auto output = [=] {
    auto head_and_last = [](const auto* list, std::size_t size, auto last) {
      json entries = json::array();
      for (std::size_t i = 0; i < std::min<std::size_t>(size, 2 * block_width); ++i) entries.push_back(list[i]);
      entries.push_back(last);
      return entries;
    };
    return json{{"rows", head_and_last(pattern->rows.data(), pattern->rows.size(), pattern->rows.back())},
                {"cols", head_and_last(pattern->cols.data(), pattern->cols.size(), pattern->cols.back())},
                {"vals", head_and_last(values->data_ptr<double>(), std::size_t(values->numel()),
                                       values->data_ptr<double>()[values->numel() - 1])}};
  };
  return {evaluate, output};
}

const bool registered = register_module("ba", {{"objective", objective}, {"jacobian", jacobian}});

}  // namespace
}  // namespace gradbench::ba
