// GradBench's particle (evals/particle/README.md): the charged particle of Pearlmutter
// and Siskind's "Using Programming Language Theory to Make Automatic Differentiation
// Sound and Efficient". The particle starts at (0, 8) with velocity (0.75, 0) and feels
// the force −∇ₓp(x) of the potential p(x) = ‖x − (10, 10 − w)‖⁻¹ + ‖x − (10, 0)‖⁻¹; naive
// Euler integration (time step 0.1) runs until it crosses the x axis, where linear
// interpolation gives x₀(t_f). Gradient descent finds the w that minimises x₀(t_f)², and
// the derivative d/dw differentiates through every ∇ₓp of the trajectory: nested AD.
//
// The first letter of a function's name is the mode of d/dw, the second that of ∇ₓp,
// which always comes from a compiled kernel of p (its reverse sweep, or two forward
// sweeps along x₁ and x₂):
// - d/dw in forward mode (ff, fr) runs the trajectory on gradc::dual numbers carrying
//   d/dw, the kernel's programs included: forward over forward, forward over reverse.
//   The dynamic mode's dual tensors cannot do ff (one dual level exists at a time), and
//   fr on dual tensors took a hundred times longer or more.
// - d/dw in reverse mode (rr, rf) records the trajectory in the dynamic mode and calls
//   autograd::grad. ∇ₓp is one operation of that graph, whose backward records ∇ₓp
//   again with tensor operations — autograd::grad with create_graph, or dual tensors —
//   and differentiates it: reverse over reverse, reverse over forward.
#include "eval_registry.hpp"
#include "nested_descent.hpp"
#include "nested_points.hpp"

#include <gradc/autograd.hpp>
#include <gradc/gradc.hpp>

#include <array>
#include <memory>

namespace gradbench::particle {
namespace {

using gradc::Tensor;
using gradc::tensor_list;
using gradc::autograd::AutogradContext;
namespace forward_ad = gradc::autograd::forward_ad;

using nested::Mode;
using nested::tensor2;
using nested::values2;

constexpr double time_step = 0.1;
constexpr std::array<double, 2> start_position{0.0, 8.0};
constexpr std::array<double, 2> start_velocity{0.75, 0.0};

// The potential p(x₁, x₂; a, b) of the charges a = (a₁, a₂) and b = (b₁, b₂), compiled
// once, differentiated with respect to x₁ and x₂. d/dw in forward mode runs its programs on
// dual numbers whose tangent enters through a₂ = 10 − w: a kernel's calls on dual numbers
// carry the tangents of every argument, wrt or not (docs/static.md, "How it is computed").
const auto& potential_kernel() {
  static const auto kernel = [] {
    auto [x1, x2, a1, a2, b1, b2] = gradc::variables<6>();
    const auto inverse_distance = [](const auto& d1, const auto& d2) { return 1.0 / sqrt(d1 * d1 + d2 * d2); };
    return gradc::compile(inverse_distance(x1 - a1, x2 - a2) + inverse_distance(x1 - b1, x2 - b2), gradc::wrt(x1, x2));
  }();
  return kernel;
}

// The charges (10, 10 − w) and (10, 0), as a₁, a₂, b₁, b₂.
template <class T>
std::array<T, 4> charges_at(const T& w) {
  return {T(10.0), 10.0 - w, T(10.0), T(0.0)};
}

// ∇ₓp at x by the compiled kernel in mode `inner`: one reverse sweep (the adjoint
// program), or two forward sweeps (the tangent program along x₁, then x₂). The number type
// is double, or gradc::dual when d/dw differentiates these programs in forward mode.
template <Mode inner, class T>
std::array<T, 2> potential_gradient(const std::array<T, 2>& x, const std::array<T, 4>& charges) {
  const std::array<T, 6> at{x[0], x[1], charges[0], charges[1], charges[2], charges[3]};
  if constexpr (inner == Mode::reverse) {
    const auto gradient = potential_kernel().gradient(at).gradient;
    return {gradient[0], gradient[1]};
  } else {
    const T zero(0.0), one(1.0);
    return {potential_kernel().jvp(at, {one, zero}).tangent, potential_kernel().jvp(at, {zero, one}).tangent};
  }
}

// x₀(t_f)², with ∇ₓp in mode `inner`. On doubles it is the objective of the argmin; on
// dual numbers seeded with dw = 1 its tangent is d/dw in forward mode.
template <Mode inner, class T>
T crossing_x0_squared(const T& w) {
  const std::array<T, 4> charges = charges_at(w);
  std::array<T, 2> x{T(start_position[0]), T(start_position[1])};
  std::array<T, 2> v{T(start_velocity[0]), T(start_velocity[1])};
  while (true) {
    const std::array<T, 2> x_next{x[0] + time_step * v[0], x[1] + time_step * v[1]};
    if (!(x_next[1] > 0.0)) {
      const T crossing_time = -x[1] / v[1];
      const T x0 = x[0] + crossing_time * v[0];
      return x0 * x0;
    }
    const std::array<T, 2> gradient = potential_gradient<inner>(x, charges);
    v = {v[0] - time_step * gradient[0], v[1] - time_step * gradient[1]};
    x = x_next;
  }
}

// The tensors every recorded trajectory uses, made once (in prepare).
struct Constants {
  Tensor fixed_charges = gradc::tensor({{10.0, 10.0}, {10.0, 0.0}}, doubles());  // (10, 10 − w), (10, 0) at w = 0
  Tensor charge_shift = gradc::tensor({{0.0, -1.0}, {0.0, 0.0}}, doubles());     // their derivative by w
  Tensor directions = gradc::eye(2, doubles());                                   // the tangents of ∇ₓp's forward mode
};

const Constants& constants() {
  static const Constants made;
  return made;
}

// p with tensor operations, at points x of shape [..., 2], the charges the rows of a
// [2, 2] tensor.
Tensor recorded_potential(const Tensor& x, const Tensor& charges) {
  const Tensor d = x.unsqueeze(-2) - charges;
  return (d * d).sum(-1).pow(-0.5).sum(-1);
}

// ∇ₓp recorded with tensor operations: in reverse mode, autograd::grad with create_graph;
// in forward mode, dual tensors, both directions in one pass (x stacked twice, the
// tangents the identity).
template <Mode inner>
Tensor recorded_potential_gradient(const Tensor& x, const Tensor& charges) {
  if constexpr (inner == Mode::reverse) {
    return gradc::autograd::grad({recorded_potential(x, charges)}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
  } else {
    forward_ad::dual_level level;
    const Tensor x_along = forward_ad::make_dual(gradc::stack({x, x}), constants().directions);
    return forward_ad::unpack_dual(recorded_potential(x_along, charges)).tangent;
  }
}

// ∇ₓp as one operation of the dynamic graph. Forward runs the compiled kernel. Backward
// records ∇ₓp in mode `inner` on a graph of its own, from fresh leaves, and differentiates
// it with autograd::grad: each call then walks that small graph only (recorded directly in
// the trajectory's graph, every autograd::grad would walk the whole trajectory so far,
// quadratic in its length).
template <Mode inner>
struct PotentialGradient : gradc::autograd::Function<PotentialGradient<inner>> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, const Tensor& charges) {
    ctx->save_for_backward({x, charges});
    const double* c = charges.data_ptr<double>();
    return tensor2(potential_gradient<inner>(values2(x), std::array{c[0], c[1], c[2], c[3]}));
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    const tensor_list saved = ctx->get_saved_variables();
    gradc::AutoGradMode enable_grad(true);
    const Tensor x = saved[0].detach().set_requires_grad(true);
    const Tensor charges = saved[1].detach().set_requires_grad(true);
    return gradc::autograd::grad({recorded_potential_gradient<inner>(x, charges)}, {x, charges}, {grad_outputs[0]});
  }
};

// x₀(t_f)² recorded in the dynamic mode, w requiring grad.
template <Mode inner>
Tensor recorded_crossing_x0_squared(const Tensor& w) {
  const Tensor charges = constants().fixed_charges + w * constants().charge_shift;
  Tensor x = tensor2(start_position);
  Tensor v = tensor2(start_velocity);
  while (true) {
    Tensor x_next = x.add(v, time_step);
    if (!(values2(x_next)[1] > 0.0)) {
      const Tensor crossing_time = -x[1] / v[1];
      const Tensor x0 = x[0] + crossing_time * v[0];
      return x0 * x0;
    }
    v = v.sub(PotentialGradient<inner>::apply(x, charges), time_step);
    x = std::move(x_next);
  }
}

// d/dw x₀(t_f)² in mode `outer`, through ∇ₓp in mode `inner`.
template <Mode outer, Mode inner>
double crossing_derivative(double w) {
  if constexpr (outer == Mode::forward) {
    gradc::dual<double, 1> seeded(w);
    seeded.tangent[0] = 1.0;
    return crossing_x0_squared<inner>(seeded).tangent[0];
  } else {
    const Tensor leaf = gradc::scalar_tensor(w, gradc::TensorOptions(doubles()).requires_grad(true));
    return gradc::autograd::grad({recorded_crossing_x0_squared<inner>(leaf)}, {leaf})[0].template item<double>();
  }
}

template <Mode outer, Mode inner>
struct ControlProblem {
  using Point = std::array<double, 1>;
  static Point primal(const Point& w) { return w; }
  static double value(const Point& w) { return crossing_x0_squared<inner>(w[0]); }
  static Point gradient(const Point& w) { return {crossing_derivative<outer, inner>(w[0])}; }
  static Point step(const Point& w, double eta, const Point& g) { return {w[0] - eta * g[0]}; }
};

template <Mode outer, Mode inner>
Prepared minimise(const json& input) {
  const double w0 = input.at("w").get<double>();
  potential_kernel();
  constants();
  auto w = std::make_shared<double>();
  return {[=] { *w = nested_descent::argmin(ControlProblem<outer, inner>{}, {w0})[0]; }, [=] { return json(*w); }};
}

const bool registered = register_module("particle", {{"rr", minimise<Mode::reverse, Mode::reverse>},
                                                     {"ff", minimise<Mode::forward, Mode::forward>},
                                                     {"fr", minimise<Mode::forward, Mode::reverse>},
                                                     {"rf", minimise<Mode::reverse, Mode::forward>}});

}  // namespace
}  // namespace gradbench::particle
