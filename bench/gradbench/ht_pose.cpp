// GradBench's ht: the pose, θ ↦ skinning transform, over a batch of θ (ht_pose.hpp).
#include "ht_pose.hpp"

#include "tensor_json.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace gradbench::ht {
namespace {

using gradc::Tensor;
namespace forward_ad = gradc::autograd::forward_ad;

// An elementary rotation as a 4 × 4 matrix whose entries are linear in (cos t, sin t, 1):
// entry [row][column][k] is the coefficient of the k-th of them.
using LinearRotation = std::array<std::array<std::array<double, 3>, 4>, 4>;
constexpr int cosine = 0, sine = 1, one = 2;

// ht.hpp's euler_angles_to_rotation_matrix: Rx, Ry and Rz about the x, y and z axes.
LinearRotation elementary_rotation(int axis) {
  const int a = (axis + 1) % 3, b = (axis + 2) % 3;  // the plane of the rotation
  LinearRotation r{};
  r[std::size_t(axis)][std::size_t(axis)][one] = 1;
  r[3][3][one] = 1;
  r[std::size_t(a)][std::size_t(a)][cosine] = 1;
  r[std::size_t(b)][std::size_t(b)][cosine] = 1;
  r[std::size_t(b)][std::size_t(a)][sine] = 1;
  r[std::size_t(a)][std::size_t(b)][sine] = -1;
  return r;
}

// R = Rz·Ry·Rx is linear in the 27 products cz·cy·cx of (cos, sin, 1) of the z, y and x
// angles (product index (z·3 + y)·3 + x): its coefficients [27][16], row-major 4 × 4.
std::array<std::array<double, 16>, 27> rotation_coefficients() {
  const LinearRotation rx = elementary_rotation(0), ry = elementary_rotation(1), rz = elementary_rotation(2);
  std::array<std::array<double, 16>, 27> coefficients{};
  for (std::size_t z = 0; z < 3; ++z)
    for (std::size_t y = 0; y < 3; ++y)
      for (std::size_t x = 0; x < 3; ++x)
        for (std::size_t row = 0; row < 4; ++row)
          for (std::size_t column = 0; column < 4; ++column) {
            double sum = 0;
            for (std::size_t m = 0; m < 4; ++m)
              for (std::size_t l = 0; l < 4; ++l) sum += rz[row][m][z] * ry[m][l][y] * rx[l][column][x];
            coefficients[(z * 3 + y) * 3 + x][row * 4 + column] = sum;
          }
  return coefficients;
}

// ht.hpp's to_pose_params: which θ feeds each bone's Euler angles (bone b reads pose
// parameter column b + 3). The first two angles of a finger's second bone and the first
// angle of its third and fourth bones come from θ; every other angle is 0 (-1 here).
std::vector<std::array<std::int64_t, 3>> theta_of_euler_angles(std::size_t bone_count) {
  std::vector<std::array<std::int64_t, 3>> theta_of(bone_count, {-1, -1, -1});
  std::int64_t theta = 6;
  std::size_t bone = 2;
  for (int finger = 0; finger < 5; ++finger, ++bone)
    for (int joint = 2; joint <= 4; ++joint, ++bone) {
      if (bone >= bone_count) throw std::runtime_error("ht: the model has too few bones for 26 pose parameters");
      theta_of[bone][0] = theta++;
      if (joint == 2) theta_of[bone][1] = theta++;
    }
  return theta_of;
}

std::vector<double> flat_matrix(const json& rows) {
  std::vector<double> flat;
  for (const auto& row : rows)
    for (const auto& value : row) flat.push_back(value.get<double>());
  return flat;
}

// ht.hpp's angle_axis_to_rotation_matrix of each row of ω [K, 3]: [K, 3, 3].
Tensor angle_axis_rotations(const Pose& pose, const Tensor& omega) {
  const std::int64_t k = omega.size(0);
  const Tensor angle = omega.norm(2, {1}, true);
  // The primal decides the branch, as in ht.hpp (whose derivative there is 0).
  if (forward_ad::unpack_dual(angle).primal.select(0, 0).item<double>() < 1e-4)
    return gradc::eye(3).expand({k, 3, 3});
  const Tensor axis = omega / angle;
  const Tensor c = gradc::cos(angle).unsqueeze(2), s = gradc::sin(angle).unsqueeze(2);
  const Tensor outer = axis.unsqueeze(2) * axis.unsqueeze(1);
  const Tensor cross = axis.mm(pose.cross_product_basis).view({k, 3, 3});
  return c * gradc::eye(3) + (1.0 - c) * outer + s * cross;
}

}  // namespace

Pose read_pose(const json& model) {
  const auto parents = model.at("parents").get<std::vector<std::int64_t>>();
  const std::size_t bone_count = parents.size();
  const auto bone_total = std::int64_t(bone_count);

  // Levels: a bone's parent comes before it (ht.hpp's relatives_to_absolutes assumes so).
  std::vector<std::int64_t> depth(bone_count, 0);
  std::int64_t deepest = 0;
  for (std::size_t bone = 0; bone < bone_count; ++bone) {
    const std::int64_t parent = parents[bone];
    if (parent >= std::int64_t(bone)) throw std::runtime_error("ht: a bone's parent must come before it");
    depth[bone] = parent < 0 ? 0 : depth[std::size_t(parent)] + 1;
    deepest = std::max(deepest, depth[bone]);
  }
  Pose pose;
  std::vector<std::int64_t> row_of_bone(bone_count);
  for (std::int64_t level = 0; level <= deepest; ++level) {
    std::vector<std::int64_t> parent_rows;
    const std::int64_t level_start = std::int64_t(pose.bone_order.size());
    for (std::size_t bone = 0; bone < bone_count; ++bone) {
      if (depth[bone] != level) continue;
      row_of_bone[bone] = std::int64_t(pose.bone_order.size());
      pose.bone_order.push_back(std::int64_t(bone));
      if (level > 0) parent_rows.push_back(row_of_bone[std::size_t(parents[bone])] - (level_start - pose.level_sizes.back()));
    }
    pose.level_sizes.push_back(std::int64_t(pose.bone_order.size()) - level_start);
    if (level > 0) pose.parent_rows.push_back(gradc::tensor_i64(parent_rows, {std::int64_t(parent_rows.size())}));
  }

  // Row a·B + r picks angle a of the bone in row r (zero rows for the angles θ leaves 0).
  const auto theta_of = theta_of_euler_angles(bone_count);
  std::vector<double> selection(std::size_t(3 * bone_total * pose_parameter_count), 0.0);
  for (std::size_t angle = 0; angle < 3; ++angle)
    for (std::size_t row = 0; row < bone_count; ++row) {
      const std::int64_t theta = theta_of[std::size_t(pose.bone_order[row])][angle];
      if (theta >= 0) selection[(angle * bone_count + row) * std::size_t(pose_parameter_count) + std::size_t(theta)] = 1;
    }
  pose.euler_angle_selection = tensor_from(selection, {3 * bone_total, pose_parameter_count});

  // Bone b's posed relative transform is base_relatives[b]·R (ht.hpp's
  // get_posed_relatives), so its coefficients are base_relatives[b] times R's.
  const auto rotation = rotation_coefficients();
  const json& base_relatives = model.at("base_relatives");
  const json& inverse_base_absolutes = model.at("inverse_base_absolutes");
  std::vector<double> relative(bone_count * 27 * 16), inverse;
  for (std::size_t row = 0; row < bone_count; ++row) {
    const std::size_t bone = std::size_t(pose.bone_order[row]);
    const std::vector<double> base = flat_matrix(base_relatives.at(bone));
    for (std::size_t product = 0; product < 27; ++product)
      for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t j = 0; j < 4; ++j) {
          double sum = 0;
          for (std::size_t m = 0; m < 4; ++m) sum += base[i * 4 + m] * rotation[product][m * 4 + j];
          relative[(row * 27 + product) * 16 + i * 4 + j] = sum;
        }
    const std::vector<double> inverse_absolute = flat_matrix(inverse_base_absolutes.at(bone));
    inverse.insert(inverse.end(), inverse_absolute.begin(), inverse_absolute.end());
  }
  pose.relative_coefficients = tensor_from(relative, {bone_total, 27, 16});
  pose.inverse_base_absolutes = tensor_from(inverse, {bone_total, 1, 4, 4});

  // n × v = [n]ₓ v with [n]ₓ = [[0, −n₂, n₁], [n₂, 0, −n₀], [−n₁, n₀, 0]].
  pose.cross_product_basis = tensor_from({0, 0, 0, 0, 0, -1, 0, 1, 0,  //
                                          0, 0, 1, 0, 0, 0, -1, 0, 0,  //
                                          0, -1, 0, 1, 0, 0, 0, 0, 0},
                                         {3, 9});
  if (model.at("is_mirrored").get<bool>()) pose.mirror = tensor_from({-1, 1, 1}, {3});
  return pose;
}

Tensor skinning_transform(const Pose& pose, const Tensor& thetas) {
  const std::int64_t k = thetas.size(0), bones = std::int64_t(pose.bone_order.size());
  // Each bone's Euler angles (x, z, y: ht.hpp's xzy) as [3, B·K], so that the elementwise
  // operations below run along rows of B·K.
  const Tensor angles = pose.euler_angle_selection.mm(thetas.t()).view({3, bones * k});
  const Tensor trigonometric = gradc::stack({gradc::cos(angles), gradc::sin(angles), gradc::ones_like(angles)}, 0);
  const Tensor x = trigonometric.select(1, 0), z = trigonometric.select(1, 1), y = trigonometric.select(1, 2);
  // The 27 products of the three (cos, sin, 1), [B, K, 27], and the posed relative
  // transforms, linear in them.
  const Tensor products = (z.view({3, 1, 1, -1}) * y.view({1, 3, 1, -1}) * x.view({1, 1, 3, -1}))
                              .view({27, bones, k})
                              .permute({1, 2, 0});
  const Tensor relatives = gradc::bmm(products, pose.relative_coefficients).view({bones, k, 4, 4});

  // ht.hpp's relatives_to_absolutes, one level of the skeleton at a time.
  gradc::tensor_list levels{relatives.narrow(0, 0, pose.level_sizes[0])};
  std::int64_t start = pose.level_sizes[0];
  for (std::size_t level = 1; level < pose.level_sizes.size(); ++level) {
    const std::int64_t size = pose.level_sizes[level];
    const Tensor parents = levels.back().index_select(0, pose.parent_rows[level - 1]);
    levels.push_back(gradc::matmul(parents, relatives.narrow(0, start, size)));
    start += size;
  }
  const Tensor absolutes = levels.size() == 1 ? levels[0] : gradc::cat(levels, 0);
  // The bone transforms' first three rows (the fourth only carries the homogeneous 1),
  // as [K, 3, B·4]: column b·4 + j is row-entry j of bone b.
  const Tensor transforms = gradc::matmul(absolutes.narrow(2, 0, 3), pose.inverse_base_absolutes);
  const Tensor skinning = transforms.permute({1, 2, 0, 3}).reshape({k, 3, bones * 4});

  // ht.hpp's apply_global_transform: the rotation (its columns scaled by pose parameter
  // column 1, which to_pose_params sets to 1) after the mirroring of x, then translation.
  Tensor rotation = angle_axis_rotations(pose, thetas.narrow(1, 0, 3));
  if (pose.mirror.defined()) rotation = rotation * pose.mirror;
  const Tensor translation = thetas.narrow(1, 3, 3).unsqueeze(2);
  return gradc::cat({gradc::matmul(rotation, skinning), translation}, 2);
}

Tensor skinning_columns(const Pose& pose, const json& model, const std::vector<std::int64_t>& vertices) {
  const std::vector<double> positions = flat_matrix(model.at("base_positions"));
  const std::vector<double> weights = flat_matrix(model.at("weights"));
  const std::size_t bones = pose.bone_order.size(), width = bones * 4 + 1;
  std::vector<double> columns(vertices.size() * width);
  for (std::size_t row = 0; row < vertices.size(); ++row) {
    const auto vertex = std::size_t(vertices[row]);
    if (vertex * bones >= weights.size()) throw std::runtime_error("ht: a correspondence names no vertex of the model");
    const double* position = &positions[vertex * 4];
    double* column = &columns[row * width];
    for (std::size_t bone_row = 0; bone_row < bones; ++bone_row) {
      const double weight = weights[vertex * bones + std::size_t(pose.bone_order[bone_row])];
      for (std::size_t j = 0; j < 4; ++j) column[bone_row * 4 + j] = weight * position[j];
    }
    column[width - 1] = 1;
  }
  return tensor_from(columns, {std::int64_t(vertices.size()), std::int64_t(width)});
}

}  // namespace gradbench::ht
