// GradBench's kmeans: cost(C) = Σᵢ minⱼ ‖pᵢ − cⱼ‖², and "dir", J·H⁻¹ with J the gradient and
// H the Hessian, which is diagonal (GradBench's "kmeans" eval README): the step a Newton
// iteration subtracts from C.
//
// The static variant (GRADC_GRADBENCH_MODE=static): the dynamic one (kmeans_dynamic.cpp)
// answers by default, its dir 3–7× faster at most sizes (docs/benchmarks.md says why).
//
// Static mode: one kernel whose extents (n points, k centroids, d coordinates) are read at
// each call, compiled once for every size. A loop over the points; a step computes the k
// squared distances of its point as ‖pᵢ‖² − 2 C·pᵢ + (‖cⱼ‖²)ⱼ, a matrix-vector product of
// k·d multiply-adds, and takes their minimum. The centroids' norms do not depend on the
// point, so the loop computes them once per call (gradc hoists them); ‖pᵢ‖² is data made
// once per input. Nothing of size n·k is stored, forward or backward: the adjoint of a
// step reruns its k distances.
//
// "dir" is one Hessian-vector product with v = 1 (k.hvp, forward over reverse on dual
// numbers), which gives the gradient J and H·1 together; H·1 is H's diagonal because H is
// diagonal (each centroid coordinate appears only in its own squared terms).
#include "eval_registry.hpp"

#include <gradc/gradc.hpp>

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace gradbench::kmeans {
namespace {

using gradc::dynamic_extent;

const auto& cost_kernel() {
  static const auto kernel = [] {
    const auto variables = gradc::variables(gradc::mat<dynamic_extent, dynamic_extent>,
                                            gradc::mat<dynamic_extent, dynamic_extent>, gradc::vec<dynamic_extent>);
    const auto centroids = std::get<0>(variables);
    const auto points = std::get<1>(variables);
    const auto point_norms = std::get<2>(variables);
    const auto centroid_norms = gradc::concat_over(
        gradc::rows(centroids), [=](auto j) { return squared_norm(row(centroids, j)); });
    const auto cost = gradc::sum_over(gradc::rows(points), [=](auto i) {
      return min(point_norms[i] - 2.0 * (centroids * row(points, i)) + centroid_norms);
    });
    return gradc::compile(cost, gradc::wrt(centroids));
  }();
  return kernel;
}

/// A matrix read from GradBench's list of rows, row-major.
struct Matrix {
  std::vector<double> values;
  std::size_t rows = 0, cols = 0;

  gradc::matrix_view<double> view() const { return gradc::mat_view(values, rows, cols); }
};

Matrix matrix_from_rows(const json& rows) {
  Matrix matrix;
  matrix.rows = rows.size();
  matrix.cols = matrix.rows == 0 ? 0 : rows[0].size();
  matrix.values.reserve(matrix.rows * matrix.cols);
  for (const auto& row : rows) {
    if (row.size() != matrix.cols) throw std::runtime_error("kmeans: rows of different lengths in the input");
    for (const auto& value : row) matrix.values.push_back(value.get<double>());
  }
  return matrix;
}

struct State {
  Matrix points, centroids;
  std::vector<double> point_norms;  // ‖pᵢ‖²
  std::vector<double> ones;         // the direction of the Hessian-vector product
  gradc::matrix_value<double> direction;
  double cost = 0;
};

std::shared_ptr<State> read(const json& input) {
  auto state = std::make_shared<State>();
  state->points = matrix_from_rows(input.at("points"));
  state->centroids = matrix_from_rows(input.at("centroids"));
  if (state->points.cols != state->centroids.cols)
    throw std::runtime_error("kmeans: points have " + std::to_string(state->points.cols) + " coordinates but centroids " +
                             std::to_string(state->centroids.cols));
  const std::size_t d = state->points.cols;
  state->point_norms.resize(state->points.rows);
  for (std::size_t i = 0; i < state->points.rows; ++i) {
    double norm = 0;
    for (std::size_t l = 0; l < d; ++l) norm += state->points.values[i * d + l] * state->points.values[i * d + l];
    state->point_norms[i] = norm;
  }
  state->ones.assign(state->centroids.values.size(), 1.0);
  return state;
}

Prepared cost_only(const json& input) {
  auto state = read(input);
  return {[state] { state->cost = cost_kernel()(state->centroids.view(), state->points.view(), state->point_norms); },
          [state] { return json(state->cost); }};
}

Prepared newton_direction(const json& input) {
  auto state = read(input);
  return {[state] {
            const auto ones = gradc::mat_view(state->ones, state->centroids.rows, state->centroids.cols);
            const auto r = cost_kernel().hvp(
                std::tuple{state->centroids.view(), state->points.view(), std::span<const double>(state->point_norms)},
                std::tuple{ones});
            const auto& gradient = std::get<0>(r.gradient);
            const auto& diagonal = std::get<0>(r.hvp);
            state->direction = gradient;
            for (std::size_t e = 0; e < gradient.data.size(); ++e)
              state->direction.data[e] = gradient.data[e] / diagonal.data[e];
          },
          [state] {
            const gradc::matrix_value<double>& m = state->direction;
            json rows = json::array();
            for (std::size_t i = 0; i < m.rows; ++i)
              rows.push_back(std::vector<double>(m.data.begin() + std::ptrdiff_t(i * m.cols),
                                                 m.data.begin() + std::ptrdiff_t((i + 1) * m.cols)));
            return rows;
          }};
}

const bool registered =
    register_module("kmeans", {{"cost", cost_only}, {"dir", newton_direction}}, AnsweredBy::static_mode, /*default_answer=*/false);

}  // namespace
}  // namespace gradbench::kmeans
