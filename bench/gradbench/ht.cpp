// GradBench's ht: hand tracking, from ADBench (evals/ht/README.md in GradBench; the
// primal is cpp/gradbench/evals/ht.hpp there). 26 pose parameters θ pose a skinned hand
// mesh; each data point's residual is the point minus its corresponding mesh vertex (the
// "simple" variant) or minus the point of its corresponding triangle at barycentric
// coordinates u (the "complicated" variant, where u is differentiated too).
//
// Dynamic mode. The pose reaches the mesh only through one 3 × (4B + 1) matrix, the
// skinning transform S(θ) (ht_pose.hpp, B = 22 bones): every vertex's posed position is
// S(θ)·m for a constant skinning column m (the vertex's bone weights times its rest
// position, then a 1 for the translation), built in prepare.
//
// objective: one product of S with the columns of the vertices the points use gives a
// table of their positions, from which each residual gathers its vertex (or its
// triangle's corners, combined at u). gather, element by element, is the cheap gather
// here: index_select copies through two temporary views per index (about 0.5 µs each).
//
// jacobian, forward mode. θ's 26 directions go through the pose at once, as dual tensors
// whose primal is θ repeated 26 times (make_dual wants a tangent shaped like its primal,
// so the directions are a batch dimension); on tensors of 22 bones the repeated primal
// costs little (0.5 ms). Reverse mode would need a cotangent per entry of S, 267 of them:
// the same pose as one batched backward takes about 11 ms. After S everything is linear
// in S, so the θ-columns of a point's residuals are its skinning column (combined at u)
// times S's 26 tangents: one matrix product [n, 89]·[89, 3·26] whose rows are the
// Jacobian's rows (gathering 78 tangent entries per point from a per-vertex table would
// cost more than the product, with either gather). Carrying the duals on through that product instead would compute the
// value 26 times over (3.7 times slower at n = 51200). u's two columns are compressed as
// GradBench's own tools compress them (point i's u touches only point i's residuals):
// one dual pass per coordinate of u, seeding every point at once.

#include "eval_registry.hpp"
#include "ht_pose.hpp"
#include "tensor_json.hpp"

#include <gradc/autograd.hpp>
#include <gradc/gradc.hpp>
#include <gradc/parallel/threads.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace gradbench::ht {
namespace {

using gradc::Tensor;
namespace forward_ad = gradc::autograd::forward_ad;

// u₀·a + u₁·b + (1 − u₀ − u₁)·c: the point of a triangle at barycentric coordinates u
// (ht.hpp's hand_point_coord), as one pass over memory.
const auto& barycentric_kernel() {
  static const auto kernel = [] {
    auto [u0, u1, a, b, c] = gradc::variables<5>();
    return gradc::autograd::fuse(gradc::compile(u0 * a + u1 * b + (1.0 - u0 - u1) * c), "barycentric");
  }();
  return kernel;
}

struct Problem {
  Pose pose;
  Tensor theta;   // [26]
  Tensor points;  // [n, 3]
  Tensor us;      // [n, 2]; undefined in the simple variant
  // Skinning columns are negated throughout: S times them is −position, so that the
  // residuals point − position are sums.
  // The columns of the vertices the points use, a row each: [used, 4B + 1].
  Tensor used_vertex_columns;
  // Where each residual's −position is in the flattened [used, 3] table of those
  // vertices' −positions: [n·3], or [3·n·3] corner by corner.
  Tensor position_in_table;
  // jacobian only: each point's column ([n, 4B + 1]), or its triangle's corners'
  // ([3, n, 4B + 1]).
  Tensor point_columns;
  bool complicated() const { return us.defined(); }
  std::int64_t point_count() const { return points.size(0); }
};

Problem read_problem(const json& input, bool with_point_columns) {
  const json& data = input.at("data");
  const json& model = data.at("model");
  Problem problem;
  problem.pose = read_pose(model);
  problem.theta = tensor_from(input.at("theta").get<std::vector<double>>(), {pose_parameter_count});
  problem.points = tensor_from_rows(data.at("points"));
  const json& us = input.at("us");
  if (!us.empty()) problem.us = tensor_from_rows(us);

  // The mesh vertex of each point, or of each corner of its triangle (corner by corner).
  const auto correspondences = data.at("correspondences").get<std::vector<std::int64_t>>();
  std::vector<std::int64_t> vertices = correspondences;
  if (problem.complicated()) {
    const auto triangles = model.at("triangles").get<std::vector<std::array<std::int64_t, 3>>>();
    vertices.clear();
    for (std::size_t corner = 0; corner < 3; ++corner)
      for (std::int64_t triangle : correspondences) vertices.push_back(triangles.at(std::size_t(triangle))[corner]);
  }

  std::vector<std::int64_t> used_vertices, position_in_table;
  std::vector<std::int64_t> row_of_vertex(model.at("base_positions").size(), -1);
  for (std::int64_t vertex : vertices) {
    std::int64_t& row = row_of_vertex.at(std::size_t(vertex));
    if (row < 0) {
      row = std::int64_t(used_vertices.size());
      used_vertices.push_back(vertex);
    }
    for (std::int64_t coordinate = 0; coordinate < 3; ++coordinate) position_in_table.push_back(3 * row + coordinate);
  }
  problem.used_vertex_columns = -skinning_columns(problem.pose, model, used_vertices);
  problem.position_in_table = gradc::tensor_i64(position_in_table, {std::int64_t(position_in_table.size())});
  if (with_point_columns) {
    problem.point_columns = -skinning_columns(problem.pose, model, vertices);
    if (problem.complicated()) problem.point_columns = problem.point_columns.view({3, problem.point_count(), -1});
  }
  return problem;
}

// The residuals' −positions under S [3, 4B + 1]: [n, 3], or [3, n, 3] corner by corner.
Tensor negated_positions(const Problem& problem, const Tensor& transform) {
  const Tensor table = problem.used_vertex_columns.mm(transform.t());
  const Tensor gathered = table.view({-1}).gather(0, problem.position_in_table);
  if (!problem.complicated()) return gathered.view({problem.point_count(), 3});
  return gathered.view({3, problem.point_count(), 3});
}

// Values at each triangle's corners [3, n, width] combined at the points' u [n, width].
Tensor at_barycentric_coordinates(const Tensor& u0, const Tensor& u1, const Tensor& corners) {
  return barycentric_kernel()(u0, u1, corners[0], corners[1], corners[2]);
}

Prepared objective(const json& input) {
  auto problem = std::make_shared<Problem>(read_problem(input, false));
  auto residuals = std::make_shared<Tensor>();
  return {[=] {
            gradc::NoGradGuard no_graph;
            const Problem& p = *problem;
            const Tensor transform = skinning_transform(p.pose, p.theta.unsqueeze(0)).squeeze(0);
            const Tensor positions = negated_positions(p, transform);
            *residuals = p.points + (p.complicated() ? at_barycentric_coordinates(p.us.narrow(1, 0, 1),
                                                                                  p.us.narrow(1, 1, 1), positions)
                                                     : positions);
          },
          [=] { return json(flat_values(*residuals)); }};
}

// The Jacobian [n, 3, width], columns in ht.hpp's JacOutput order: ∂/∂u₀ and ∂/∂u₁ in the
// complicated variant, then θ. The columns are joined inside the timed function, as the
// hand-written tool writes its whole matrix there (one more copy of the Jacobian: 14-21 ms
// at complicated hand11).
Prepared jacobian(const json& input) {
  auto problem = std::make_shared<Problem>(read_problem(input, true));
  auto result = std::make_shared<Tensor>();
  return {[=] {
            gradc::NoGradGuard no_graph;
            const Problem& p = *problem;
            const std::int64_t n = p.point_count();
            Tensor transform, tangents;
            {
              forward_ad::dual_level level;
              const Tensor thetas = p.theta.expand({pose_parameter_count, pose_parameter_count}).contiguous();
              const Tensor directions = gradc::eye(pose_parameter_count);
              auto [primal, tangent] =
                  forward_ad::unpack_dual(skinning_transform(p.pose, forward_ad::make_dual(thetas, directions)));
              transform = primal.select(0, 0);
              // [4B + 1, 3·26]: column 26·i + k is direction k's tangent of S's row i.
              tangents = tangent.permute({2, 1, 0}).reshape({tangent.size(2), 3 * pose_parameter_count});
            }
            if (!p.complicated()) {
              *result = p.point_columns.mm(tangents).view({n, 3, pose_parameter_count});
              return;
            }
            const Tensor point_columns =
                at_barycentric_coordinates(p.us.narrow(1, 0, 1), p.us.narrow(1, 1, 1), p.point_columns);
            const Tensor by_theta = point_columns.mm(tangents).view({n, 3, pose_parameter_count});

            // u repeated for a point's three residuals: as a broadcast [n, 1] operand a dual
            // takes the fused kernel's slower gathering path (about twice the time).
            const Tensor u0 = p.us.narrow(1, 0, 1).expand({n, 3}).contiguous();
            const Tensor u1 = p.us.narrow(1, 1, 1).expand({n, 3}).contiguous();
            const Tensor corners = negated_positions(p, transform);
            Tensor by_u0, by_u1;
            {
              forward_ad::dual_level level;
              const Tensor seed = gradc::ones({n, 3});
              by_u0 = forward_ad::unpack_dual(at_barycentric_coordinates(forward_ad::make_dual(u0, seed), u1, corners))
                          .tangent;
              by_u1 = forward_ad::unpack_dual(at_barycentric_coordinates(u0, forward_ad::make_dual(u1, seed), corners))
                          .tangent;
            }
            *result = gradc::cat({by_u0.unsqueeze(2), by_u1.unsqueeze(2), by_theta}, 2);
          },
          [=] { return rows_of(result->view({-1, result->size(2)})); }};
}

const bool registered = register_module("ht", {{"objective", objective}, {"jacobian", jacobian}});

}  // namespace
}  // namespace gradbench::ht
