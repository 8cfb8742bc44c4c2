// GradBench's ht: the hand model's skeleton as tensors, and the map from the pose θ to the
// skinning transform (ht.hpp's to_pose_params, get_skinned_vertex_positions and
// apply_global_transform in GradBench's cpp/gradbench/evals, written over batches of θ).
#pragma once

#include "eval_registry.hpp"

#include <gradc/autograd.hpp>

#include <cstdint>
#include <vector>

namespace gradbench::ht {

/// θ: global rotation (angle-axis), global translation, then four angles per finger.
inline constexpr std::int64_t pose_parameter_count = 26;

/// The model's bones in level order (the root first, then its children, then theirs...),
/// so that each level of the skeleton is one batched matrix product.
struct Pose {
  std::vector<std::int64_t> bone_order;   // the model's bone index of each level-order row
  std::vector<std::int64_t> level_sizes;  // bones per level
  std::vector<gradc::Tensor> parent_rows;  // per level after the first: its parents' rows in the level before
  gradc::Tensor euler_angle_selection;     // [3·B, 26]: each bone's three Euler angles out of θ
  gradc::Tensor relative_coefficients;     // [B, 27, 16]: each bone's posed relative transform, linear in
                                           // the 27 products of its angles' (cos, sin, 1)
  gradc::Tensor inverse_base_absolutes;    // [B, 1, 4, 4]
  gradc::Tensor cross_product_basis;       // [3, 9]: n ↦ the matrix of n × ·
  gradc::Tensor mirror;                    // [3]: −1 for x if the model is mirrored, else undefined
};

Pose read_pose(const json& model);

/// The skinning transform of each row of `thetas` [K, 26]: [K, 3, 4B + 1]. A vertex's
/// posed position is it times the vertex's skinning column (skinning_columns).
gradc::Tensor skinning_transform(const Pose& pose, const gradc::Tensor& thetas);

/// The skinning columns of `vertices`, one row each: [vertices, 4B + 1], bone b's four
/// entries its weight times the vertex's homogeneous rest position, then a 1 for the
/// translation.
gradc::Tensor skinning_columns(const Pose& pose, const json& model, const std::vector<std::int64_t>& vertices);

}  // namespace gradbench::ht
