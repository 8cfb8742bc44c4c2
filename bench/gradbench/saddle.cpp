// GradBench's saddle (evals/saddle/README.md): the saddle point of Pearlmutter and
// Siskind's "Using Programming Language Theory to Make Automatic Differentiation Sound and
// Efficient", min over p₁ of max over p₂ of f(p₁, p₂) = (x₁² + y₁²) − (x₂² + y₂²) with the
// paper's names p₁ = (x₁, y₁) and p₂ = (x₂, y₂) (cpp/gradbench/evals/saddle.hpp in
// GradBench calls the objective the same way). Every descent starts at the input point.
// The objective of the argmin over p₁ is max_{p₂} f(p₁, p₂) = f(p₁, argmax), the argmax
// found by gradient ascent with ∇_{p₂} f; the argmin's gradient differentiates through
// that whole ascent, every ∇_{p₂} f included: nested AD. Then p₂ is the argmax at the
// argmin's p₁, its gradient in the argmin's mode (the README's step 2).
//
// The first letter of a function's name is the mode of the argmin's gradient, the second
// that of ∇_{p₂} f, which always comes from a compiled kernel of f (its reverse sweep, or
// two forward sweeps along x₂ and y₂):
// - the argmin's gradient in forward mode (ff, fr) runs the ascent on gradc::dual numbers
//   carrying the two tangents d/dx₁ and d/dy₁, the kernel's programs included: forward
//   over forward, forward over reverse. The dynamic mode's dual tensors cannot do ff (one
//   dual level exists at a time), and would carry one tangent per pass.
// - in reverse mode (rr, rf) the ascent is recorded in the dynamic mode and
//   differentiated by autograd::grad. ∇_{p₂} f is one operation of that graph, whose
//   backward records ∇_{p₂} f again with tensor operations — autograd::grad with
//   create_graph, or dual tensors — and differentiates it: reverse over reverse, reverse
//   over forward.
#include "eval_registry.hpp"
#include "nested_descent.hpp"
#include "nested_points.hpp"

#include <gradc/autograd.hpp>
#include <gradc/gradc.hpp>

#include <array>
#include <memory>
#include <type_traits>
#include <vector>

namespace gradbench::saddle {
namespace {

using gradc::Tensor;
using gradc::tensor_list;
using gradc::autograd::AutogradContext;
namespace forward_ad = gradc::autograd::forward_ad;

using nested::Mode;
using nested::tensor2;
using nested::values2;

template <class T>
using Point = std::array<T, 2>;

// f(x₁, y₁, x₂, y₂), compiled once, differentiated with respect to p₂ = (x₂, y₂). The
// argmin's forward mode runs its programs on dual numbers whose tangents enter through p₁:
// a kernel's calls on dual numbers carry the tangents of every argument, wrt or not
// (docs/static.md, "How it is computed").
const auto& objective_kernel() {
  static const auto kernel = [] {
    auto [x1, y1, x2, y2] = gradc::variables<4>();
    return gradc::compile((x1 * x1 + y1 * y1) - (x2 * x2 + y2 * y2), gradc::wrt(x2, y2));
  }();
  return kernel;
}

template <class T>
T objective(const Point<T>& p1, const Point<T>& p2) {
  return objective_kernel()(p1[0], p1[1], p2[0], p2[1]);
}

// ∇_{p₂} f by the compiled kernel in mode `inner`: one reverse sweep (the adjoint
// program), or two forward sweeps (the tangent program along x₂, then y₂). The number type
// is double, or gradc::dual when the argmin's forward mode differentiates these programs.
template <Mode inner, class T>
Point<T> objective_gradient(const Point<T>& p1, const Point<T>& p2) {
  const std::array<T, 4> at{p1[0], p1[1], p2[0], p2[1]};
  if constexpr (inner == Mode::reverse) {
    const auto gradient = objective_kernel().gradient(at).gradient;
    return {gradient[0], gradient[1]};
  } else {
    const T zero(0.0), one(1.0);
    return {objective_kernel().jvp(at, {one, zero}).tangent, objective_kernel().jvp(at, {zero, one}).tangent};
  }
}

template <class T>
double primal_value(const T& t) {
  if constexpr (std::is_same_v<T, double>) {
    return t;
  } else {
    return t.value;
  }
}

// The ascent over p₂ at a fixed p₁, on numbers: doubles, or dual numbers carrying the
// argmin's tangents.
template <Mode inner, class T>
struct AscentProblem {
  using Point = saddle::Point<T>;
  Point p1;
  static std::array<double, 2> primal(const Point& p2) { return {primal_value(p2[0]), primal_value(p2[1])}; }
  double value(const Point& p2) const { return primal_value(objective(p1, p2)); }
  Point gradient(const Point& p2) const { return objective_gradient<inner>(p1, p2); }
  static Point step(const Point& p2, double eta, const Point& g) { return {p2[0] - eta * g[0], p2[1] - eta * g[1]}; }
};

// max_{p₂} f(p₁, p₂) on numbers.
template <Mode inner, class T>
T max_objective(const Point<T>& p1, const Point<double>& start) {
  const Point<T> p2 = nested_descent::argmax(AscentProblem<inner, T>{p1}, {T(start[0]), T(start[1])});
  return objective(p1, p2);
}

// The tangents of ∇_{p₂} f's forward mode in the recorded ascent, made once (in prepare).
const Tensor& directions() {
  static const Tensor identity = gradc::eye(2, doubles());
  return identity;
}

// f with tensor operations, at points of shape [..., 2].
Tensor recorded_objective(const Tensor& p1, const Tensor& p2) {
  return (p1 * p1).sum(-1) - (p2 * p2).sum(-1);
}

// ∇_{p₂} f recorded with tensor operations: in reverse mode, autograd::grad with
// create_graph; in forward mode, dual tensors, both directions in one pass (p₂ stacked
// twice, the tangents the identity).
template <Mode inner>
Tensor recorded_objective_gradient(const Tensor& p1, const Tensor& p2) {
  if constexpr (inner == Mode::reverse) {
    return gradc::autograd::grad({recorded_objective(p1, p2)}, {p2}, {}, std::nullopt, /*create_graph=*/true)[0];
  } else {
    forward_ad::dual_level level;
    const Tensor p2_along = forward_ad::make_dual(gradc::stack({p2, p2}), directions());
    return forward_ad::unpack_dual(recorded_objective(p1, p2_along)).tangent;
  }
}

// ∇_{p₂} f as one operation of the dynamic graph. Forward runs the compiled kernel.
// Backward records ∇_{p₂} f in mode `inner` on a graph of its own, from fresh leaves, and
// differentiates it with autograd::grad: each call then walks that small graph only
// (recorded directly in the ascent's graph, every autograd::grad would walk the whole
// ascent so far, quadratic in its length).
template <Mode inner>
struct ObjectiveGradient : gradc::autograd::Function<ObjectiveGradient<inner>> {
  static Tensor forward(AutogradContext* ctx, const Tensor& p1, const Tensor& p2) {
    ctx->save_for_backward({p1, p2});
    return tensor2(objective_gradient<inner>(values2(p1), values2(p2)));
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    const tensor_list saved = ctx->get_saved_variables();
    gradc::AutoGradMode enable_grad(true);
    const Tensor p1 = saved[0].detach().set_requires_grad(true);
    const Tensor p2 = saved[1].detach().set_requires_grad(true);
    // ∇_{p₂} f does not depend on p₁: its gradient comes back undefined (allow_unused).
    return gradc::autograd::grad({recorded_objective_gradient<inner>(p1, p2)}, {p1, p2}, {grad_outputs[0]},
                                 std::nullopt, /*create_graph=*/false, /*allow_unused=*/true);
  }
};

// The ascent over p₂ recorded in the dynamic mode, p₁ requiring grad.
template <Mode inner>
struct RecordedAscentProblem {
  using Point = Tensor;
  Tensor p1;
  saddle::Point<double> p1_values;
  static std::array<double, 2> primal(const Tensor& p2) { return values2(p2); }
  double value(const Tensor& p2) const { return objective(p1_values, values2(p2)); }
  Tensor gradient(const Tensor& p2) const { return ObjectiveGradient<inner>::apply(p1, p2); }
  static Tensor step(const Tensor& p2, double eta, const Tensor& g) { return p2.sub(g, eta); }
};

// The gradient of max_{p₂} f(p₁, p₂) with respect to p₁ in mode `outer`, through the
// ascent with ∇_{p₂} f in mode `inner`.
template <Mode outer, Mode inner>
Point<double> max_objective_gradient(const Point<double>& p1, const Point<double>& start) {
  if constexpr (outer == Mode::forward) {
    using Dual = gradc::dual<double, 2>;
    Point<Dual> seeded{Dual(p1[0]), Dual(p1[1])};
    seeded[0].tangent[0] = 1.0;
    seeded[1].tangent[1] = 1.0;
    const Dual max = max_objective<inner>(seeded, start);
    return {max.tangent[0], max.tangent[1]};
  } else {
    const Tensor leaf = tensor2(p1).set_requires_grad(true);
    const Tensor p2 = nested_descent::argmax(RecordedAscentProblem<inner>{leaf, p1}, tensor2(start));
    return values2(gradc::autograd::grad({recorded_objective(leaf, p2)}, {leaf})[0]);
  }
}

template <Mode outer, Mode inner>
struct DescentProblem {
  using Point = saddle::Point<double>;
  Point start;
  static Point primal(const Point& p1) { return p1; }
  double value(const Point& p1) const { return max_objective<inner>(p1, start); }
  Point gradient(const Point& p1) const { return max_objective_gradient<outer, inner>(p1, start); }
  static Point step(const Point& p1, double eta, const Point& g) { return {p1[0] - eta * g[0], p1[1] - eta * g[1]}; }
};

template <Mode outer, Mode inner>
Prepared saddle_point(const json& input) {
  const std::vector<double> start_values = input.at("start").get<std::vector<double>>();
  const Point<double> start{start_values.at(0), start_values.at(1)};
  objective_kernel();
  directions();
  auto result = std::make_shared<std::array<double, 4>>();
  return {[=] {
            const Point<double> p1 = nested_descent::argmin(DescentProblem<outer, inner>{start}, start);
            const Point<double> p2 = nested_descent::argmax(AscentProblem<outer, double>{p1}, start);
            *result = {p1[0], p1[1], p2[0], p2[1]};
          },
          [=] { return json(*result); }};
}

const bool registered = register_module("saddle", {{"rr", saddle_point<Mode::reverse, Mode::reverse>},
                                                   {"ff", saddle_point<Mode::forward, Mode::forward>},
                                                   {"fr", saddle_point<Mode::forward, Mode::reverse>},
                                                   {"rf", saddle_point<Mode::reverse, Mode::forward>}});

}  // namespace
}  // namespace gradbench::saddle
