#pragma once
/// \file
/// Adapters to Ceres Solver (2.1; the program links Ceres itself, e.g. `-lceres -lglog`
/// with Eigen's include path, as gradc's meson.build finds it). Header-only, and not
/// included by <gradc/gradc.hpp>:
///
///  - `gradc::ceres::cost_function<Kernel, BlockSizes...>` (`make_cost_function`): a
///    compiled kernel whose outputs are residuals, as a `ceres::CostFunction` sized at
///    compile time like `ceres::AutoDiffCostFunction`, its Jacobian from the kernel's
///    Jacobian sweep (ceres/cost_function.hpp); for a kernel over array variables,
///    `array_cost_function<Kernel>`, whose blocks are its wrt variables
///    (ceres/array_cost_function.hpp);
///  - `gradc::ceres::first_order_function<Kernel>` (`make_first_order_function`): a
///    map-reduce kernel (one point's term of a cost summed over data) as a
///    `ceres::FirstOrderFunction` for `ceres::GradientProblem` (ceres/first_order_function.hpp).
///
/// Each is handed to Ceres as it expects, and Ceres deletes it (docs/ceres.md).

#include <gradc/ceres/cost_function.hpp>
#include <gradc/ceres/first_order_function.hpp>
