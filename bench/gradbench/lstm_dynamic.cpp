// GradBench's lstm: the loss of ADBench's LSTM (diagonal weight matrices) over a text
// (`objective`), and its gradient with respect to main_params and extra_params
// (`jacobian`), as GradBench's evals/lstm/README.md and cpp/gradbench/evals/lstm.hpp
// define them. lstm.cpp answers it by the static mode.
//
// Dynamic mode. One layer's step is elementwise over the hidden width b, so it is one
// fused operation (a static-mode kernel run as one node of the dynamic graph,
// autograd::fuse) with two results, the new hidden and cell states. The loop over
// characters and layers runs by wavefronts: layer i reads character t = s − i in
// wavefront s, when layer i − 1 has just produced its hidden state for that character, so
// all layers of a wavefront are one step on [layers, b] tensors and the loop has
// c + layers − 2 iterations instead of (c − 1)·layers. The prediction and the loss of all
// characters are computed together after the loop. The jacobian is reverse mode through
// that graph (autograd::grad).
#include "eval_registry.hpp"
#include "scalar_function.hpp"

#include <gradc/autograd.hpp>
#include <gradc/gradc.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace gradbench::lstm {
namespace {

using gradc::Tensor;

const gradc::TensorOptions real_options = gradc::TensorOptions().dtype(gradc::kDouble);

/// lstm.hpp's lstm_model for one hidden unit: the new hidden and cell states.
const auto& layer_step() {
  static const auto step = [] {
    auto [input, hidden, cell, w_forget, w_ingate, w_outgate, w_change, b_forget, b_ingate, b_outgate, b_change] =
        gradc::variables<11>();
    const auto new_cell = cell * sigmoid(input * w_forget + b_forget) +
                          sigmoid(hidden * w_ingate + b_ingate) * tanh(hidden * w_change + b_change);
    const auto new_hidden = sigmoid(input * w_outgate + b_outgate) * tanh(new_cell);
    return gradc::autograd::fuse(gradc::compile(new_hidden, new_cell), "lstm_step");
  }();
  return step;
}

/// One input of the eval, as tensors.
struct Problem {
  std::int64_t layers = 0, width = 0, steps = 0;  ///< steps: the characters that are read, c − 1.
  Tensor main_params;    ///< [2·layers, 4·width]: per layer a row of weights and one of biases,
                         ///< each gate's b values in the order forget, ingate, outgate, change.
  Tensor extra_params;   ///< [3, width]: the input weights, output weights and output biases.
  Tensor hidden, cell;   ///< [layers, width]: the initial states.
  Tensor inputs;         ///< [steps, 1, width]: the characters that are read.
  Tensor targets;        ///< [steps, width]: the characters that are predicted.
  Tensor unit_weights;   ///< [layers − 1, width] of ones: the layers after the first read their input unweighted.
};

/// The rows of a JSON array of arrays as a double tensor.
Tensor matrix_from_json(const json& rows, bool requires_grad) {
  std::vector<double> values;
  for (const json& row : rows)
    for (const json& value : row) values.push_back(value.get<double>());
  const std::int64_t row_count = std::int64_t(rows.size());
  return gradc::from_vector(values, {row_count, std::int64_t(values.size()) / row_count},
                            gradc::TensorOptions(real_options).requires_grad(requires_grad));
}

std::shared_ptr<const Problem> read_problem(const json& input, bool differentiable) {
  auto problem = std::make_shared<Problem>();
  Problem& p = *problem;
  p.main_params = matrix_from_json(input.at("main_params"), differentiable);
  p.extra_params = matrix_from_json(input.at("extra_params"), differentiable);
  p.layers = p.main_params.size(0) / 2;
  p.width = p.extra_params.size(1);
  const Tensor state = matrix_from_json(input.at("state"), false).view({p.layers, 2, p.width});
  p.hidden = state.select(1, 0).contiguous();
  p.cell = state.select(1, 1).contiguous();
  const Tensor sequence = matrix_from_json(input.at("sequence"), false);
  p.steps = sequence.size(0) - 1;
  p.inputs = sequence.narrow(0, 0, p.steps).contiguous().unsqueeze(1);
  p.targets = sequence.narrow(0, 1, p.steps).contiguous();
  if (p.layers > 1) p.unit_weights = gradc::ones({p.layers - 1, p.width}, real_options);
  return problem;
}

/// Rows [first, first + count) of a [layers, width] tensor; the tensor itself when that is
/// all of it (the usual case), so a full wavefront records no view.
Tensor rows(const Tensor& t, std::int64_t first, std::int64_t count) {
  return count == t.size(0) ? t : t.narrow(0, first, count);
}

/// `t` with rows [first, first + replacement rows) replaced.
Tensor with_rows(const Tensor& t, std::int64_t first, const Tensor& replacement) {
  const std::int64_t count = replacement.size(0);
  if (count == t.size(0)) return replacement;
  gradc::tensor_list parts;
  if (first > 0) parts.push_back(t.narrow(0, 0, first));
  parts.push_back(replacement);
  const std::int64_t rest = t.size(0) - first - count;
  if (rest > 0) parts.push_back(t.narrow(0, first + count, rest));
  return gradc::cat(parts);
}

/// The loss of lstm.hpp's `objective`: −(Σ_t Σ_i target_ti · (prediction_ti − lse_t)) /
/// ((c − 1)·b), with ADBench's lse_t = log(Σ_i exp(prediction_ti) + 2).
Tensor loss(const Problem& p) {
  const std::int64_t layers = p.layers;
  const Tensor in_weight = p.extra_params[0], out_weight = p.extra_params[1], out_bias = p.extra_params[2];
  // Each gate's weights and biases as a [layers, width] tensor, so that every step reads
  // them in place. The first layer's input is the character times extra_params' input
  // weights, and only the forget and output gates read it: their weights absorb the input
  // weights, and the step reads the character itself, a row of a constant. (A row of all
  // characters times the input weights would require grad, and the backward of each row's
  // select fills a zero tensor of the whole sequence: quadratic in c.)
  const Tensor by_gate = p.main_params.view({layers, 2, 4, p.width});
  const Tensor input_weights =
      layers == 1 ? in_weight.unsqueeze(0) : gradc::cat({in_weight.unsqueeze(0), p.unit_weights});
  constexpr std::int64_t weights = 0, forget = 0, outgate = 2;
  std::array<Tensor, 8> parameters;  // the order of layer_step's variables
  for (std::int64_t kind = 0; kind < 2; ++kind)
    for (std::int64_t gate = 0; gate < 4; ++gate) {
      const Tensor values = by_gate.select(1, kind).select(1, gate);
      const bool reads_input = kind == weights && (gate == forget || gate == outgate);
      parameters[std::size_t(4 * kind + gate)] = reads_input ? values * input_weights : values.contiguous();
    }

  Tensor hidden = p.hidden, cell = p.cell;
  gradc::tensor_list last_layer;  // the hidden states of all layers whenever the last one has read a character
  last_layer.reserve(std::size_t(p.steps));
  for (std::int64_t wave = 0; wave < p.steps + layers - 1; ++wave) {
    // Layer i reads character wave − i: the layers that have one to read.
    const std::int64_t first = std::max<std::int64_t>(0, wave - p.steps + 1);
    const std::int64_t last = std::min(layers - 1, wave);
    const std::int64_t count = last - first + 1;
    // The first layer reads the character, each other layer the hidden state that the layer
    // below produced in the previous wavefront.
    Tensor layer_inputs;
    if (first > 0)
      layer_inputs = hidden.narrow(0, first - 1, count);
    else if (count == 1)
      layer_inputs = p.inputs[wave];
    else
      layer_inputs = gradc::cat({p.inputs[wave], hidden.narrow(0, 0, count - 1)});

    gradc::tensor_list arguments{layer_inputs, rows(hidden, first, count), rows(cell, first, count)};
    for (const Tensor& parameter : parameters) arguments.push_back(rows(parameter, first, count));
    const gradc::tensor_list next = layer_step()(arguments);
    hidden = with_rows(hidden, first, next[0]);
    cell = with_rows(cell, first, next[1]);
    if (last == layers - 1) last_layer.push_back(hidden);
  }

  const Tensor outputs = gradc::stack(last_layer).select(1, layers - 1);  // [steps, width]
  const Tensor predictions = outputs * out_weight + out_bias;
  const Tensor log_normalisers = gradc::log(gradc::exp(predictions).sum({1}, true) + 2.0);
  const Tensor total = (p.targets * (predictions - log_normalisers)).sum();
  return total * (-1.0 / double(p.steps * p.width));
}

Prepared objective(const json& input) { return scalar_value(read_problem(input, false), loss); }

Prepared jacobian(const json& input) {
  return reverse_gradient(
      read_problem(input, true), loss, [](const Problem& p) { return gradc::tensor_list{p.main_params, p.extra_params}; },
      [](const gradc::tensor_list& g) {
        // main_params' gradient, then extra_params', each row after row.
        const Tensor flat = gradc::cat({g[0].flatten(), g[1].flatten()});
        const double* data = flat.data_ptr<double>();
        return json(std::vector<double>(data, data + flat.numel()));
      });
}

const bool registered = register_module("lstm", {{"objective", objective}, {"jacobian", jacobian}},
                                        AnsweredBy::dynamic_mode, /*default_answer=*/false);

}  // namespace
}  // namespace gradbench::lstm
