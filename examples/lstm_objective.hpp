#pragma once
// ADBench's D-LSTM loss ("A benchmark of selected algorithmic differentiation tools on
// some problems in computer vision and machine learning", Srajer, Kukelova, Fitzgibbon
// 2018, section "Long short-term memory"; GradBench's lstm eval defines it in
// evals/lstm/README.md) as ONE gradc kernel for every number of layers l, characters c
// and width b: the variables have extents known only at run time, the characters are a
// `gradc::loop` over the rows of the inputs and the layers an inner `gradc::loop` over
// the rows of the weights, both read when the kernel runs.
//
// The model, per character t and layer i, with x the layer's input (the character times
// the input weights for the first layer, the hidden state of the layer below after it):
//   forget = σ(x ⊙ w_f,i + b_f,i)       ingate = σ(h_i ⊙ w_in,i + b_in,i)
//   outgate = σ(x ⊙ w_o,i + b_o,i)       change = tanh(h_i ⊙ w_ch,i + b_ch,i)
//   c_i ← c_i ⊙ forget + ingate ⊙ change,   h_i ← outgate ⊙ tanh(c_i)
// and the prediction y = h_l ⊙ out_weight + out_bias is scored against the next
// character z by Σ_j z_j (y_j − lse), lse = log(Σ_j exp(y_j) + 2). The loss is
// −(Σ_t score_t) / ((c − 1)·b).
//
// How it is written:
//  - The outer loop's carry is the scores' running sum, the number of characters scored,
//    then the state of all layers (2·l·b entries: per layer the hidden state, then the
//    cell state, the eval's own layout). The loss is the sum over the count, over b.
//  - The inner loop over layers carries (x, c) joined, so that its states (gradc::emit(next))
//    are the new (h_i, c_i) of every layer, one row per layer: reshaped, the next state;
//    the last row's first half is the top layer's output. The first layer's carry is
//    (x, x): its second half is never read.
//  - b is a literal of the expression (the segments' offsets and lengths), so the reused
//    subexpressions (the inner loop's states, the prediction, a cell state) are copies,
//    computed once when the kernel runs (docs/static.md, "Named constants").
//  - The gates' parameters are eight l × b matrices (forget, ingate, outgate, change
//    weights, then the same biases), one row per layer, where the eval has one row of
//    4·b weights and one of 4·b biases per layer: `lstm_gates` and `lstm_eval_gradient`
//    convert both ways.
#include <cstddef>
#include <tuple>
#include <utility>
#include <vector>

#include <gradc/gradc.hpp>

/// The name of the objective's variable set (a header names it, so that the kernel's
/// type has linkage).
struct lstm_variables;

/// The loss as an expression, its variables and the kernel.
struct lstm_objective {
    /// The eight gates' l × b parameters, the input weights, the output weights, the
    /// output biases (b each), the initial state (2·l·b), the characters read and the
    /// characters predicted ((c − 1) × b each).
    static constexpr auto vars = gradc::variables<lstm_variables>(
        gradc::mat<gradc::dynamic_extent, gradc::dynamic_extent>, gradc::mat<gradc::dynamic_extent, gradc::dynamic_extent>,
        gradc::mat<gradc::dynamic_extent, gradc::dynamic_extent>, gradc::mat<gradc::dynamic_extent, gradc::dynamic_extent>,
        gradc::mat<gradc::dynamic_extent, gradc::dynamic_extent>, gradc::mat<gradc::dynamic_extent, gradc::dynamic_extent>,
        gradc::mat<gradc::dynamic_extent, gradc::dynamic_extent>, gradc::mat<gradc::dynamic_extent, gradc::dynamic_extent>,
        gradc::vec<gradc::dynamic_extent>, gradc::vec<gradc::dynamic_extent>, gradc::vec<gradc::dynamic_extent>,
        gradc::vec<gradc::dynamic_extent>, gradc::mat<gradc::dynamic_extent, gradc::dynamic_extent>,
        gradc::mat<gradc::dynamic_extent, gradc::dynamic_extent>);

    /// The loss for width b (the segments of the state are b long: b is a literal of the
    /// expression, so one kernel type serves every b, l and c).
    static auto loss(std::size_t b) {
        const auto w_forget = std::get<0>(vars);
        const auto w_ingate = std::get<1>(vars);
        const auto w_outgate = std::get<2>(vars);
        const auto w_change = std::get<3>(vars);
        const auto b_forget = std::get<4>(vars);
        const auto b_ingate = std::get<5>(vars);
        const auto b_outgate = std::get<6>(vars);
        const auto b_change = std::get<7>(vars);
        const auto in_weight = std::get<8>(vars);
        const auto out_weight = std::get<9>(vars);
        const auto out_bias = std::get<10>(vars);
        const auto state = std::get<11>(vars);
        const auto inputs = std::get<12>(vars);
        const auto targets = std::get<13>(vars);
        const auto zero = gradc::constant([] { return 0.0; });
        const auto sigmoid = [](const auto& v) { return 1.0 / (1.0 + exp(-v)); };

        // The carry: the scores' running sum, the number of characters scored, then every
        // layer's state (2·l·b entries).
        const auto characters = gradc::loop(gradc::rows(inputs), gradc::concat(zero, zero, state), [=](auto s, auto t) {
            const auto x0 = row(inputs, t) * in_weight;
            const auto layers = gradc::loop(gradc::rows(w_forget), gradc::concat(x0, x0), [=](auto xc, auto i) {
                const auto x = gradc::segment(xc, 0, b);
                const auto h = gradc::segment(s, 2 * i * b + 2, b);
                const auto c = gradc::segment(s, (2 * i + 1) * b + 2, b);
                const auto forget = sigmoid(x * row(w_forget, i) + row(b_forget, i));
                const auto ingate = sigmoid(h * row(w_ingate, i) + row(b_ingate, i));
                const auto outgate = sigmoid(x * row(w_outgate, i) + row(b_outgate, i));
                const auto change = tanh(h * row(w_change, i) + row(b_change, i));
                const auto cell = c * forget + ingate * change;
                return gradc::emit(gradc::concat(outgate * tanh(cell), cell));
            });
            // The top layer's hidden state.
            const auto top = gradc::segment(gradc::last_row(std::get<1>(layers)), 0, b);
            const auto prediction = top * out_weight + out_bias;
            const auto normaliser = log(sum(exp(prediction)) + 2.0);
            const auto target = row(targets, t);
            const auto score = sum(target * prediction) - normaliser * sum(target);
            return gradc::concat(s[0] + score, s[1] + 1.0, gradc::reshape_as(std::get<1>(layers), state));
        });
        return -characters[0] / (double(b) * characters[1]);
    }
};

/// The eight gates' l × b parameters (row-major, in the kernel's order) from the eval's
/// main_params, whose row r (2l rows of 4·b entries) is `main_row(r)`.
template <class MainRow>
std::vector<std::vector<double>> lstm_gates(std::size_t l, std::size_t b, const MainRow& main_row) {
    std::vector<std::vector<double>> gates(8, std::vector<double>(l * b));
    for (std::size_t i = 0; i < l; ++i)
        for (std::size_t kind = 0; kind < 2; ++kind) {  // weights, then biases
            const double* row = main_row(2 * i + kind);
            for (std::size_t g = 0; g < 4; ++g)
                for (std::size_t j = 0; j < b; ++j) gates[4 * kind + g][i * b + j] = row[g * b + j];
        }
    return gates;
}

/// The kernel's gradient (its first eleven entries: the gates', then in_weight's,
/// out_weight's and out_bias') in the eval's layout: main_params' rows, then extra_params'.
template <class Gradient>
std::vector<double> lstm_eval_gradient(const Gradient& g, std::size_t l, std::size_t b) {
    std::vector<double> out(2 * l * 4 * b + 3 * b);
    [&]<std::size_t... k>(std::index_sequence<k...>) {
        const auto put = [&](std::size_t gate, const auto& m) {
            const std::size_t kind = gate / 4, within = gate % 4;
            for (std::size_t i = 0; i < l; ++i)
                for (std::size_t j = 0; j < b; ++j) out[(2 * i + kind) * 4 * b + within * b + j] = m(i, j);
        };
        (put(k, std::get<k>(g)), ...);
    }(std::make_index_sequence<8>{});
    const std::size_t e = 2 * l * 4 * b;
    for (std::size_t j = 0; j < b; ++j) {
        out[e + j] = std::get<8>(g)[j];
        out[e + b + j] = std::get<9>(g)[j];
        out[e + 2 * b + j] = std::get<10>(g)[j];
    }
    return out;
}
