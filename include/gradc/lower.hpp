#pragma once
/// Compile-time lowering: order and CSE, activity, slots, and the primal, tangent and
/// adjoint programs; `gradc::compile` and the kernel it returns.

#include <gradc/lower/activity.hpp>
#include <gradc/lower/compile.hpp>
#include <gradc/lower/describe.hpp>
#include <gradc/lower/kernel.hpp>
#include <gradc/lower/order.hpp>
#include <gradc/lower/print.hpp>
#include <gradc/lower/program.hpp>
#include <gradc/lower/results.hpp>
