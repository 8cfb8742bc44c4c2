// GradBench's ba: bundle adjustment (evals/ba/README.md in GradBench; the primal is
// cpp/gradbench/evals/ba.hpp there).
//
// Static mode: the reprojection of one observation is one compiled scalar kernel (17
// inputs: the 11 camera parameters, the point, the weight, the feature; 2 outputs), run
// over the p observations by its batch calls, eight observations a lane group with
// AVX-512. The observations go in blocks of `block` (512): each block's parameters are
// gathered from the cameras and points by the observations' indices into structure-of-
// arrays buffers that stay in cache, the batch call writes the block's residuals or
// Jacobian entries, and they are copied out in GradBench's order. One kernel serves
// every n, m and p; with --multithreaded the blocks are shared among the cores.
//
// jacobian: the kernel's `jacobian_batch` (2 outputs × 15 wrt variables: two reverse
// sweeps per lane group) gives each observation's 2 × 15 block; the weight rows,
// d(1 − w²)/dw, come from the weight kernel's `gradient_batch`.
#include "eval_registry.hpp"

#include <gradc/gradc.hpp>
#include <gradc/parallel/reduce.hpp>
#include <gradc/parallel/threads.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace gradbench::ba {
namespace {

// An observation's parameters in the column order of its Jacobian block (ba.hpp's
// SparseMat): the camera [r1 r2 r3 C1 C2 C3 f u0 v0 k1 k2], the point, the weight; then
// the feature, which has no derivative.
constexpr std::size_t camera_size = 11;
constexpr std::size_t point = camera_size;
constexpr std::size_t weight = point + 3;
constexpr std::size_t block_width = weight + 1;  // the wrt variables
constexpr std::size_t feature = block_width;
constexpr std::size_t input_count = feature + 2;
constexpr std::size_t jacobian_entries = 2 * block_width;

// Observations per block: the block's 17 inputs, 2 residuals and 30 Jacobian entries
// (196 KiB of doubles) stay in the second-level cache.
constexpr std::size_t block = 512;

// ba.hpp's computeReprojError of one observation. The features are inputs without
// derivatives (wrt names the 15 parameters, in the block's column order).
const auto& reprojection_kernel() {
  static const auto kernel = [] {
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
    return gradc::compile(w * (projected_x * scale + u0 - feature_x), w * (projected_y * scale + v0 - feature_y),
                          gradc::wrt(r1, r2, r3, c1, c2, c3, f, u0, v0, k1, k2, x1, x2, x3, w));
  }();
  return kernel;
}

// ba.hpp's computeZachWeightError.
const auto& weight_kernel() {
  static const auto kernel = [] {
    auto [w] = gradc::variables<1>();
    return gradc::compile(1.0 - w * w);
  }();
  return kernel;
}

struct Problem {
  std::size_t cameras = 0, points = 0, observations = 0;
  std::vector<double> camera_values;  // n × 11
  std::vector<double> point_values;   // m × 3
  std::vector<double> weights;        // p
  std::vector<double> features;       // p × 2
  std::vector<std::size_t> camera_of_observation, point_of_observation;
};

// The input is one camera, point, weight and feature; the eval README asks the tool to
// duplicate them (n cameras, m points, p observations) exactly as ba.hpp's from_json does,
// observation i seeing camera i mod n and point i mod m.
Problem read_problem(const json& input) {
  Problem problem;
  const auto count = [&](const char* name) {
    const auto value = input.at(name).get<long long>();
    if (value < 1) throw std::runtime_error(std::string("ba: ") + name + " is " + std::to_string(value) + "; expected at least 1");
    return std::size_t(value);
  };
  problem.cameras = count("n");
  problem.points = count("m");
  problem.observations = count("p");
  const std::size_t n = problem.cameras, m = problem.points, p = problem.observations;
  const auto repeated = [](const std::vector<double>& values, std::size_t times, std::size_t size, const char* name) {
    if (values.size() != size)
      throw std::runtime_error(std::string("ba: ") + name + " has " + std::to_string(values.size()) +
                               " values; expected " + std::to_string(size));
    std::vector<double> all;
    all.reserve(size * times);
    for (std::size_t i = 0; i < times; ++i) all.insert(all.end(), values.begin(), values.end());
    return all;
  };
  problem.camera_values = repeated(input.at("cam").get<std::vector<double>>(), n, camera_size, "cam");
  problem.point_values = repeated(input.at("x").get<std::vector<double>>(), m, 3, "x");
  problem.weights.assign(p, input.at("w").get<double>());
  problem.features = repeated(input.at("feat").get<std::vector<double>>(), p, 2, "feat");
  problem.camera_of_observation.resize(p);
  problem.point_of_observation.resize(p);
  for (std::size_t i = 0; i < p; ++i) {
    problem.camera_of_observation[i] = i % n;
    problem.point_of_observation[i] = i % m;
  }
  return problem;
}

/// One block's structure-of-arrays buffers, kept per thread.
struct BlockBuffers {
  std::array<std::vector<double>, input_count> inputs;
  std::array<std::vector<double>, 2> residuals;
  std::array<std::vector<double>, jacobian_entries> jacobian;

  BlockBuffers() {
    for (auto& v : inputs) v.resize(block);
    for (auto& v : residuals) v.resize(block);
    for (auto& v : jacobian) v.resize(block);
  }
  template <std::size_t N>
  static std::array<std::span<double>, N> spans(std::array<std::vector<double>, N>& vectors, std::size_t size) {
    std::array<std::span<double>, N> result;
    for (std::size_t k = 0; k < N; ++k) result[k] = std::span<double>(vectors[k].data(), size);
    return result;
  }
  std::array<std::span<const double>, input_count> input_spans(std::size_t size) const {
    std::array<std::span<const double>, input_count> result;
    for (std::size_t k = 0; k < input_count; ++k) result[k] = std::span<const double>(inputs[k].data(), size);
    return result;
  }
};

BlockBuffers& buffers_of_this_thread() {
  thread_local BlockBuffers buffers;
  return buffers;
}

/// Gathers observations [begin, begin + size) into the buffers' inputs.
void gather_block(const Problem& problem, std::size_t begin, std::size_t size, BlockBuffers& buffers) {
  for (std::size_t b = 0; b < size; ++b) {
    const std::size_t i = begin + b;
    const double* camera = problem.camera_values.data() + camera_size * problem.camera_of_observation[i];
    const double* point_values = problem.point_values.data() + 3 * problem.point_of_observation[i];
    for (std::size_t k = 0; k < camera_size; ++k) buffers.inputs[k][b] = camera[k];
    for (std::size_t k = 0; k < 3; ++k) buffers.inputs[point + k][b] = point_values[k];
    buffers.inputs[weight][b] = problem.weights[i];
    buffers.inputs[feature][b] = problem.features[2 * i];
    buffers.inputs[feature + 1][b] = problem.features[2 * i + 1];
  }
}

/// f(begin, size, buffers) for every block of observations, on every core the tool may use.
template <class F>
void for_each_block(std::size_t observations, F&& f) {
  const std::size_t blocks = (observations + block - 1) / block;
  gradc::parallel::for_each_chunk(blocks, gradc::get_num_threads(), [&](std::size_t c) {
    const std::size_t begin = c * block;
    f(begin, std::min(block, observations - begin), buffers_of_this_thread());
  });
}

Prepared objective(const json& input) {
  auto problem = std::make_shared<const Problem>(read_problem(input));
  const std::size_t p = problem->observations;
  // ba.hpp's outputs: the 2p reprojection residuals (x and y of each observation in turn)
  // and the p weight residuals.
  auto reprojection_errors = std::make_shared<std::vector<double>>(2 * p);
  auto weight_errors = std::make_shared<std::vector<double>>(p);
  auto evaluate = [=] {
    for_each_block(p, [&](std::size_t begin, std::size_t size, BlockBuffers& buffers) {
      gather_block(*problem, begin, size, buffers);
      reprojection_kernel().value_batch(buffers.input_spans(size), BlockBuffers::spans(buffers.residuals, size),
                                        gradc::threads{1});
      for (std::size_t b = 0; b < size; ++b) {
        (*reprojection_errors)[2 * (begin + b)] = buffers.residuals[0][b];
        (*reprojection_errors)[2 * (begin + b) + 1] = buffers.residuals[1][b];
      }
    });
    weight_kernel().value_batch(std::array{std::span<const double>(problem->weights)},
                                std::array{std::span<double>(*weight_errors)});
  };
  // The eval README's BAObjectiveOutput, compressed as ba.hpp's to_json: the first
  // observation's residuals and the first weight residual, with their counts.
  auto output = [=] {
    return json{{"reproj_error", {{"elements", {(*reprojection_errors)[0], (*reprojection_errors)[1]}}, {"repeated", p}}},
                {"w_err", {{"element", (*weight_errors)[0]}, {"repeated", p}}}};
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
  const std::size_t n = problem.cameras, m = problem.points, p = problem.observations;
  const int point_columns = int(camera_size * n), weight_columns = int(camera_size * n + 3 * m);
  SparsityPattern pattern;
  pattern.rows.reserve(3 * p + 1);
  pattern.cols.reserve((2 * block_width + 1) * p);
  pattern.rows.push_back(0);
  for (std::size_t i = 0; i < p; ++i) {
    const int camera = int(problem.camera_of_observation[i]), point_index = int(problem.point_of_observation[i]);
    for (int row = 0; row < 2; ++row) {
      pattern.rows.push_back(pattern.rows.back() + int(block_width));
      for (int k = 0; k < int(camera_size); ++k) pattern.cols.push_back(int(camera_size) * camera + k);
      for (int k = 0; k < 3; ++k) pattern.cols.push_back(point_columns + 3 * point_index + k);
      pattern.cols.push_back(weight_columns + int(i));
    }
  }
  for (std::size_t i = 0; i < p; ++i) {
    pattern.rows.push_back(pattern.rows.back() + 1);
    pattern.cols.push_back(weight_columns + int(i));
  }
  return pattern;
}

// The values of the SparseMat in its order: per observation its x row then its y row of
// 15 entries, then the p weight rows, written inside the timed function as the
// hand-written tool writes its own. The sparsity pattern (rows, cols) depends only on the
// sizes and is made once per input.
Prepared jacobian(const json& input) {
  auto problem = std::make_shared<const Problem>(read_problem(input));
  auto pattern = std::make_shared<const SparsityPattern>(sparsity_pattern(*problem));
  const std::size_t p = problem->observations;
  auto values = std::make_shared<std::vector<double>>((jacobian_entries + 1) * p);
  auto weight_errors = std::make_shared<std::vector<double>>(p);
  auto evaluate = [=] {
    double* reprojection_values = values->data();
    for_each_block(p, [&](std::size_t begin, std::size_t size, BlockBuffers& buffers) {
      gather_block(*problem, begin, size, buffers);
      // jac[m·15 + j] is ∂ residual m / ∂ parameter j: the order of the observation's
      // two rows in the SparseMat.
      reprojection_kernel().jacobian_batch(buffers.input_spans(size), BlockBuffers::spans(buffers.residuals, size),
                                           BlockBuffers::spans(buffers.jacobian, size), gradc::threads{1});
      double* out = reprojection_values + jacobian_entries * begin;
      for (std::size_t b = 0; b < size; ++b)
        for (std::size_t e = 0; e < jacobian_entries; ++e) out[jacobian_entries * b + e] = buffers.jacobian[e][b];
    });
    weight_kernel().gradient_batch(std::array{std::span<const double>(problem->weights)},
                                   std::span<double>(*weight_errors),
                                   std::array{std::span<double>(values->data() + jacobian_entries * p, p)});
  };
  // The eval README's BAJacobianOutput: the first 30 entries of each list (fewer if the
  // list is shorter: ba.hpp's to_json would read past its end) and the last.
  auto output = [=] {
    auto head_and_last = [](const auto& list) {
      json entries = json::array();
      for (std::size_t i = 0; i < std::min<std::size_t>(list.size(), jacobian_entries); ++i) entries.push_back(list[i]);
      entries.push_back(list.back());
      return entries;
    };
    return json{{"rows", head_and_last(pattern->rows)}, {"cols", head_and_last(pattern->cols)},
                {"vals", head_and_last(*values)}};
  };
  return {evaluate, output};
}

const bool registered =
    register_module("ba", {{"objective", objective}, {"jacobian", jacobian}}, AnsweredBy::static_mode);

}  // namespace
}  // namespace gradbench::ba
