// The gradient descent of GradBench's particle and saddle evals: the argmin and argmax
// of Pearlmutter and Siskind's "Using Programming Language Theory to Make Automatic
// Differentiation Sound and Efficient", as every GradBench tool runs it
// (cpp/gradbench/gd.hpp in GradBench, with the same constants and the same order of
// operations, so that the answers match the evals' fixed numbers).
//
// Saddle runs this descent inside a derivative (its argmax inside the gradient of its
// argmin), so a point is whatever the caller's AD differentiates: plain doubles, a
// gradc::Tensor recording a graph, or gradc::dual numbers. The descent touches points
// only through the problem's gradient and step x − η·g, which the outer derivative
// follows; its tests (gradient magnitude, length of the step, whether the objective went
// down) read primal values, since a comparison has no derivative.
#pragma once

#include <array>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <utility>

namespace gradbench::nested_descent {

/// What the descent needs of a problem:
///   Point                                 the type of x and of the gradient
///   std::array<double, N> primal(Point)   the values of a point
///   double value(Point)                   the objective's value (only compared)
///   Point gradient(Point)                 the objective's gradient at x
///   Point step(Point x, double η, Point g) x − η·g
template <class P>
concept Problem = requires(const P& problem, const typename P::Point& x) {
  { problem.primal(x) };
  { problem.value(x) } -> std::convertible_to<double>;
  { problem.gradient(x) } -> std::convertible_to<typename P::Point>;
  { problem.step(x, 1.0, x) } -> std::convertible_to<typename P::Point>;
};

namespace detail {

template <std::size_t N>
double magnitude(const std::array<double, N>& v) {
  double sum = 0.0;
  for (double e : v) sum += e * e;
  return std::sqrt(sum);
}

template <std::size_t N>
double distance(const std::array<double, N>& u, const std::array<double, N>& v) {
  double sum = 0.0;
  for (std::size_t i = 0; i < N; ++i) sum += (u[i] - v[i]) * (u[i] - v[i]);
  return std::sqrt(sum);
}

/// gd.hpp's multivariate_argmin for `sign` = 1. For `sign` = -1 it is gd.hpp's
/// multivariate_argmax, the argmin of −f with gradient −g: the step x − η·(−g) is
/// x − (−η)·g and −f' < −f is f' > f, the same numbers without negating points.
template <Problem P>
typename P::Point descend(const P& problem, typename P::Point x, double sign) {
  double fx = sign * problem.value(x);
  typename P::Point gx = problem.gradient(x);
  int successes = 0;
  double eta = 1e-5;
  while (true) {
    if (magnitude(problem.primal(gx)) <= 1e-5) return x;
    if (successes == 10) {
      eta *= 2;
      successes = 0;
      continue;
    }
    typename P::Point x_next = problem.step(x, sign * eta, gx);
    if (distance(problem.primal(x), problem.primal(x_next)) <= 1e-5) return x;
    const double f_next = sign * problem.value(x_next);
    if (f_next < fx) {
      x = std::move(x_next);
      fx = f_next;
      gx = problem.gradient(x);
      ++successes;
    } else {
      eta /= 2;
      successes = 0;
    }
  }
}

}  // namespace detail

/// The argmin of the problem's objective by gradient descent from `start`.
template <Problem P>
typename P::Point argmin(const P& problem, typename P::Point start) {
  return detail::descend(problem, std::move(start), 1.0);
}

/// The argmax of the problem's objective by gradient ascent from `start`.
template <Problem P>
typename P::Point argmax(const P& problem, typename P::Point start) {
  return detail::descend(problem, std::move(start), -1.0);
}

}  // namespace gradbench::nested_descent
