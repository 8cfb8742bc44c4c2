// Double tensors from and to the flat JSON arrays GradBench's inputs and outputs use.
#pragma once

#include "eval_registry.hpp"

#include <gradc/autograd.hpp>

#include <vector>

namespace gradbench {

inline gradc::TensorOptions doubles() { return gradc::TensorOptions().dtype(gradc::kFloat64); }

/// A row-major tensor of `sizes` from a flat list of numbers.
inline gradc::Tensor tensor_from(const std::vector<double>& values, const gradc::Shape& sizes) {
  return gradc::from_vector(values, sizes, doubles());
}

/// A row-major tensor from a list of rows (GradBench's nested matrices).
inline gradc::Tensor tensor_from_rows(const json& rows) {
  const auto row_count = std::int64_t(rows.size());
  const auto width = row_count == 0 ? std::int64_t(0) : std::int64_t(rows[0].size());
  std::vector<double> flat;
  flat.reserve(std::size_t(row_count * width));
  for (const auto& row : rows) {
    if (std::int64_t(row.size()) != width) throw std::runtime_error("rows of different lengths in the input");
    for (const auto& value : row) flat.push_back(value.get<double>());
  }
  return tensor_from(flat, {row_count, width});
}

/// The elements of a tensor in row-major order.
inline std::vector<double> flat_values(const gradc::Tensor& tensor) {
  const gradc::Tensor dense = tensor.contiguous();
  const double* data = dense.data_ptr<double>();
  return std::vector<double>(data, data + dense.numel());
}

/// A matrix as a list of rows.
inline json rows_of(const gradc::Tensor& matrix) {
  const std::vector<double> values = flat_values(matrix);
  const auto width = std::size_t(matrix.size(1));
  json rows = json::array();
  for (std::size_t start = 0; start < values.size(); start += width)
    rows.push_back(std::vector<double>(values.begin() + std::ptrdiff_t(start),
                                       values.begin() + std::ptrdiff_t(start + width)));
  return rows;
}

}  // namespace gradbench
