// ADBench's D-LSTM loss and its gradient (GradBench's lstm eval) by one static kernel
// with run-time extents: a loop over the characters whose step runs a loop over the
// layers (examples/lstm_objective.hpp). One compiled kernel serves every number of
// layers, characters and width.
//
// The program checks, on small problems of two shapes:
//  - the loss against the eval's own definition on plain numbers (GradBench's
//    cpp/gradbench/evals/lstm.hpp, written out below);
//  - the gradient with respect to every parameter against the dynamic mode running the
//    same model as a C++ loop over tensors, and a few entries against central differences;
// then times the loss and the gradient at one of GradBench's sizes (l = 2, c = 1,024).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <tuple>
#include <vector>

#include <gradc/autograd.hpp>
#include <gradc/gradc.hpp>

#include "lstm_objective.hpp"

namespace {

/// One problem in the eval's layout: main (2l × 4b, per layer a row of the four gates'
/// weights and one of their biases), extra (3 × b), state (2l × b, per layer the hidden
/// state then the cell state), sequence (c × b), all row-major.
struct problem {
    std::size_t l, b, c;
    std::vector<double> main, extra, state, sequence;
};

problem random_problem(std::size_t l, std::size_t b, std::size_t c, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    problem p{l, b, c, std::vector<double>(2 * l * 4 * b), std::vector<double>(3 * b), std::vector<double>(2 * l * b),
              std::vector<double>(c * b)};
    for (auto* v : {&p.main, &p.extra, &p.state, &p.sequence})
        for (double& x : *v) x = u(rng);
    return p;
}

/// The loss on plain numbers, as the eval defines it.
double reference_loss(const problem& p) {
    const std::size_t l = p.l, b = p.b;
    std::vector<double> state = p.state, x(b);
    const auto sigmoid = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
    double total = 0.0;
    for (std::size_t t = 0; t + 1 < p.c; ++t) {
        for (std::size_t j = 0; j < b; ++j) x[j] = p.sequence[t * b + j] * p.extra[j];
        for (std::size_t i = 0; i < l; ++i) {
            const double* w = &p.main[(2 * i) * 4 * b];
            const double* bias = &p.main[(2 * i + 1) * 4 * b];
            double* hidden = &state[2 * i * b];
            double* cell = &state[(2 * i + 1) * b];
            for (std::size_t j = 0; j < b; ++j) {
                const double forget = sigmoid(x[j] * w[j] + bias[j]);
                const double ingate = sigmoid(hidden[j] * w[b + j] + bias[b + j]);
                const double outgate = sigmoid(x[j] * w[2 * b + j] + bias[2 * b + j]);
                const double change = std::tanh(hidden[j] * w[3 * b + j] + bias[3 * b + j]);
                cell[j] = cell[j] * forget + ingate * change;
                hidden[j] = outgate * std::tanh(cell[j]);
            }
            for (std::size_t j = 0; j < b; ++j) x[j] = hidden[j];
        }
        double sum_exp = 0.0;
        for (std::size_t j = 0; j < b; ++j) {
            x[j] = x[j] * p.extra[b + j] + p.extra[2 * b + j];
            sum_exp += std::exp(x[j]);
        }
        const double lse = std::log(sum_exp + 2.0);
        for (std::size_t j = 0; j < b; ++j) total += p.sequence[(t + 1) * b + j] * (x[j] - lse);
    }
    return -total / double((p.c - 1) * b);
}

/// The kernel's arguments, converted from the eval's layout: the eight gates' l × b
/// parameters, in_weight, out_weight, out_bias, the state, the characters read and the
/// characters predicted.
struct arguments {
    std::vector<std::vector<double>> gates;  // forget, ingate, outgate, change weights, then biases
    std::vector<double> in_weight, out_weight, out_bias, state, inputs, targets;
};

arguments arguments_of(const problem& p) {
    const std::size_t l = p.l, b = p.b;
    arguments a;
    a.gates = lstm_gates(l, b, [&](std::size_t r) { return &p.main[r * 4 * b]; });
    a.in_weight.assign(p.extra.begin(), p.extra.begin() + long(b));
    a.out_weight.assign(p.extra.begin() + long(b), p.extra.begin() + long(2 * b));
    a.out_bias.assign(p.extra.begin() + long(2 * b), p.extra.end());
    a.state = p.state;
    a.inputs.assign(p.sequence.begin(), p.sequence.end() - long(b));
    a.targets.assign(p.sequence.begin() + long(b), p.sequence.end());
    return a;
}

/// Calls a kernel call (value, gradient) on the arguments.
template <class Call>
auto call_with(const problem& p, arguments& a, Call&& call) {
    const std::size_t l = p.l, b = p.b, n = p.c - 1;
    const auto m = [&](std::vector<double>& v) { return gradc::mat_view(v, l, b); };
    return call(m(a.gates[0]), m(a.gates[1]), m(a.gates[2]), m(a.gates[3]), m(a.gates[4]), m(a.gates[5]),
                m(a.gates[6]), m(a.gates[7]), a.in_weight, a.out_weight, a.out_bias, a.state,
                gradc::mat_view(a.inputs, n, b), gradc::mat_view(a.targets, n, b));
}

/// The gradient by the dynamic mode: the eval's loops over tensors, reverse mode.
std::vector<double> dynamic_gradient(const problem& p) {
    using gradc::Tensor;
    const auto l = std::int64_t(p.l), b = std::int64_t(p.b), c = std::int64_t(p.c);
    const auto options = gradc::TensorOptions().dtype(gradc::kDouble);
    Tensor main = gradc::from_vector(p.main, {2 * l, 4 * b}, gradc::TensorOptions(options).requires_grad(true));
    Tensor extra = gradc::from_vector(p.extra, {3, b}, gradc::TensorOptions(options).requires_grad(true));
    const Tensor state = gradc::from_vector(p.state, {2 * l, b}, options);
    const Tensor sequence = gradc::from_vector(p.sequence, {c, b}, options);
    std::vector<Tensor> hidden, cell;
    for (std::int64_t i = 0; i < l; ++i) {
        hidden.push_back(state[2 * i]);
        cell.push_back(state[2 * i + 1]);
    }
    Tensor total = gradc::zeros({}, options);
    for (std::int64_t t = 0; t + 1 < c; ++t) {
        Tensor x = sequence[t] * extra[0];
        for (std::int64_t i = 0; i < l; ++i) {
            const Tensor w = main[2 * i], bias = main[2 * i + 1];
            const auto gate = [&](const Tensor& v, std::int64_t g) { return v.narrow(0, g * b, b); };
            const Tensor forget = gradc::sigmoid(x * gate(w, 0) + gate(bias, 0));
            const Tensor ingate = gradc::sigmoid(hidden[std::size_t(i)] * gate(w, 1) + gate(bias, 1));
            const Tensor outgate = gradc::sigmoid(x * gate(w, 2) + gate(bias, 2));
            const Tensor change = gradc::tanh(hidden[std::size_t(i)] * gate(w, 3) + gate(bias, 3));
            cell[std::size_t(i)] = cell[std::size_t(i)] * forget + ingate * change;
            hidden[std::size_t(i)] = outgate * gradc::tanh(cell[std::size_t(i)]);
            x = hidden[std::size_t(i)];
        }
        const Tensor prediction = x * extra[1] + extra[2];
        const Tensor lse = gradc::log(gradc::exp(prediction).sum() + 2.0);
        total = total + (sequence[t + 1] * (prediction - lse)).sum();
    }
    const Tensor loss = total * (-1.0 / double((c - 1) * b));
    loss.backward();
    const Tensor flat = gradc::cat({main.grad().flatten(), extra.grad().flatten()});
    const double* data = flat.data_ptr<double>();
    return std::vector<double>(data, data + flat.numel());
}

bool check(bool ok, const char* what) {
    std::printf("%s: %s\n", ok ? "ok" : "FAILED", what);
    return ok;
}

double relative(double a, double b) { return std::abs(a - b) / std::max(1.0, std::abs(b)); }

}  // namespace

int main() {
    const auto kernel = [](std::size_t b) {
        const auto& v = lstm_objective::vars;
        return gradc::compile(lstm_objective::loss(b),
                              gradc::wrt(std::get<0>(v), std::get<1>(v), std::get<2>(v), std::get<3>(v), std::get<4>(v),
                                         std::get<5>(v), std::get<6>(v), std::get<7>(v), std::get<8>(v),
                                         std::get<9>(v), std::get<10>(v)));
    };
    bool ok = true;
    for (const auto& [l, b, c] : {std::tuple{2ul, 5ul, 7ul}, std::tuple{3ul, 4ul, 12ul}, std::tuple{1ul, 3ul, 2ul}}) {
        const problem p = random_problem(l, b, c, unsigned(l * 100 + b * 10 + c));
        arguments a = arguments_of(p);
        auto k = kernel(b);
        const double expected = reference_loss(p);
        const double value = call_with(p, a, [&](const auto&... x) { return k(x...); });
        char what[160];
        std::snprintf(what, sizeof what, "l = %zu, b = %zu, c = %zu: loss %.15g against the eval's %.15g", l, b, c,
                      value, expected);
        ok &= check(relative(value, expected) < 1e-13, what);

        const auto r = call_with(p, a, [&](const auto&... x) { return k.gradient(x...); });
        const std::vector<double> g = lstm_eval_gradient(r.gradient, p.l, p.b), dynamic = dynamic_gradient(p);
        double worst = 0.0;
        for (std::size_t i = 0; i < g.size(); ++i) worst = std::max(worst, relative(g[i], dynamic[i]));
        std::snprintf(what, sizeof what, "  gradient (%zu entries) against the dynamic mode: largest difference %.2g",
                      g.size(), worst);
        ok &= check(r.value == value && worst < 1e-12, what);

        // Central differences on a few parameters: a gate weight, a gate bias, an output weight.
        double worst_difference = 0.0;
        for (std::size_t i : {std::size_t(0), 4 * b + 1, 2 * l * 4 * b + b}) {
            const double h = 1e-6;
            problem up = p, down = p;
            double& u = i < p.main.size() ? up.main[i] : up.extra[i - p.main.size()];
            double& d = i < p.main.size() ? down.main[i] : down.extra[i - p.main.size()];
            u += h;
            d -= h;
            const double fd = (reference_loss(up) - reference_loss(down)) / (2 * h);
            worst_difference = std::max(worst_difference, std::abs(fd - g[i]));
        }
        std::snprintf(what, sizeof what, "  three entries against central differences: largest difference %.2g",
                      worst_difference);
        ok &= check(worst_difference < 1e-8, what);
    }

    // One of GradBench's sizes, timed (not checked: the figures are in docs/benchmarks.md).
    {
        const problem p = random_problem(2, 14, 1024, 7);
        arguments a = arguments_of(p);
        auto k = kernel(p.b);
        const auto time = [&](auto&& f) {
            double best = 1e9;
            for (int run = 0; run < 5; ++run) {
                const auto start = std::chrono::steady_clock::now();
                f();
                best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
            }
            return best;
        };
        double sink = 0.0;
        const double plain_time = time([&] { sink += reference_loss(p); });
        const double value_time = time([&] { sink += call_with(p, a, [&](const auto&... x) { return k(x...); }); });
        const double gradient_time =
            time([&] { sink += call_with(p, a, [&](const auto&... x) { return k.gradient(x...); }).value; });
        std::printf("l = 2, b = 14, c = 1024: the loss on plain numbers %.3f ms; the kernel's loss %.3f ms (%.2f x), "
                    "gradient %.3f ms (%.2f x the kernel's loss)%s\n",
                    plain_time * 1e3, value_time * 1e3, value_time / plain_time, gradient_time * 1e3,
                    gradient_time / value_time, sink == 0.0 ? " " : "");
    }
    std::printf("%s\n", ok ? "all checks passed" : "SOME CHECKS FAILED");
    return ok ? 0 : 1;
}
