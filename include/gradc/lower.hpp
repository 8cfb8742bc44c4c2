#pragma once
/// \file
/// Compile-time lowering: the outputs' graphs merged, activity, slots, and the primal,
/// tangent, adjoint and map-reduce programs; the kernel's calls on one point.

#include <gradc/lower/activity.hpp>
#include <gradc/lower/array_dot.hpp>
#include <gradc/lower/array_kernel.hpp>
#include <gradc/lower/array_print.hpp>
#include <gradc/lower/describe.hpp>
#include <gradc/lower/dot.hpp>
#include <gradc/lower/flat.hpp>
#include <gradc/lower/kernel.hpp>
#include <gradc/lower/map_reduce_nodes.hpp>
#include <gradc/lower/map_reduce_split.hpp>
#include <gradc/lower/merge_outputs.hpp>
#include <gradc/lower/print.hpp>
#include <gradc/lower/program.hpp>
#include <gradc/lower/results.hpp>
#include <gradc/lower/second_order.hpp>
#include <gradc/lower/steps.hpp>
