// GradBench's det: the determinant of an ℓ×ℓ matrix by expansion by minors along the first
// row, and its gradient (GradBench's "det" eval README, after cmpad's det_by_minor).
//
// Dynamic mode, with every distinct minor computed once. The reference recursion expands
// each minor along its first row and recomputes a minor every time a path reaches it
// (ℓ! products). Here the minors are grouped by size: the minor of the last m rows and a
// set S of m columns is Σ_{p} (−1)^p · A[ℓ−m, S_p] · minor(S without S_p), the same terms
// in the same order as the recursion, so one level is two gathers, a product and a row
// sum over all C(ℓ, m) sets at once: ℓ·2^(ℓ−1) products in all. The result is the same
// polynomial as the reference's; the time is not comparable with tools that follow the
// recursion, which docs/benchmarks.md says beside the figures.
#include "tensor_json.hpp"

#include <bit>
#include <cmath>

namespace gradbench::det {
namespace {

// For the sets of m columns (m = 2…ℓ): which column and which smaller minor each term
// of the expansion takes, and its sign.
struct Level {
  gradc::Tensor columns;        // int64, sets × m
  gradc::Tensor smaller_minor;  // int64, sets × m: index among the sets of m − 1 columns
  gradc::Tensor signs;          // double, sets × m
  std::int64_t sets = 0;
};

struct State {
  std::int64_t size = 0;
  gradc::Tensor matrix;
  std::vector<Level> levels;  // levels[m − 2] for m = 2…ℓ
  gradc::Tensor result;
};

std::vector<Level> expansion_levels(std::int64_t size) {
  // Each set of columns is a bit mask; position_in_level[mask] is its index among the sets
  // of its size, in increasing order of the mask.
  const std::uint32_t masks = std::uint32_t(1) << size;
  std::vector<std::int64_t> position_in_level(masks);
  std::vector<std::int64_t> count_of_size(std::size_t(size) + 1, 0);
  for (std::uint32_t mask = 0; mask < masks; ++mask)
    position_in_level[mask] = count_of_size[std::size_t(std::popcount(mask))]++;

  std::vector<Level> levels;
  for (std::int64_t m = 2; m <= size; ++m) {
    std::vector<std::int64_t> columns, smaller;
    std::vector<double> signs;
    for (std::uint32_t mask = 0; mask < masks; ++mask) {
      if (std::popcount(mask) != m) continue;
      std::int64_t position = 0;
      for (std::int64_t column = 0; column < size; ++column) {
        if ((mask >> column & 1u) == 0) continue;
        columns.push_back(column);
        smaller.push_back(position_in_level[mask & ~(std::uint32_t(1) << column)]);
        signs.push_back(position % 2 == 0 ? 1.0 : -1.0);
        ++position;
      }
    }
    const std::int64_t sets = count_of_size[std::size_t(m)];
    levels.push_back({gradc::tensor_i64(columns, {sets * m}), gradc::tensor_i64(smaller, {sets * m}),
                      tensor_from(signs, {sets * m}), sets});
  }
  return levels;
}

std::shared_ptr<State> read(const json& input) {
  auto state = std::make_shared<State>();
  const auto values = input.at("A").get<std::vector<double>>();
  state->size = input.at("ell").get<std::int64_t>();
  if (state->size < 1 || state->size > 30 || std::int64_t(values.size()) != state->size * state->size)
    throw std::runtime_error("det: A has " + std::to_string(values.size()) + " elements; expected ell² with 1 ≤ ell ≤ 30, ell = " +
                             std::to_string(state->size));
  state->matrix = tensor_from(values, {state->size, state->size});
  state->levels = expansion_levels(state->size);
  return state;
}

gradc::Tensor determinant(const State& state, const gradc::Tensor& matrix) {
  const std::int64_t size = state.size;
  gradc::Tensor minors = matrix.select(0, size - 1);  // the 1×1 minors of the last row
  for (std::int64_t m = 2; m <= size; ++m) {
    const Level& level = state.levels[std::size_t(m - 2)];
    const gradc::Tensor row = matrix.select(0, size - m);
    const gradc::Tensor terms = level.signs * gradc::index_select(row, 0, level.columns) *
                                gradc::index_select(minors, 0, level.smaller_minor);
    minors = gradc::sum(terms.view({level.sets, m}), {1});
  }
  return minors.select(0, 0);
}

Prepared primal(const json& input) {
  auto state = read(input);
  return {[state] {
            gradc::NoGradGuard no_graph;
            state->result = determinant(*state, state->matrix);
          },
          [state] { return json(state->result.item<double>()); }};
}

Prepared gradient(const json& input) {
  auto state = read(input);
  state->matrix.requires_grad_(true);
  return {[state] {
            const gradc::Tensor value = determinant(*state, state->matrix);
            state->result = gradc::autograd::grad({value}, {state->matrix})[0];
          },
          [state] { return json(flat_values(state->result)); }};
}

const bool registered = register_module("det", {{"primal", primal}, {"gradient", gradient}});

}  // namespace
}  // namespace gradbench::det
