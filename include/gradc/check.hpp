#pragma once
/// \file
/// gradc's checker: `gradc::autograd::gradcheck` / `gradgradcheck` for the dynamic mode,
/// and `gradc::check::gradcheck` / `gradc::check::cross` / `gradc::check::gradgradcheck` for
/// compiled static kernels.
/// See docs/gradcheck.md.

#include <gradc/check/array_second_order.hpp>
#include <gradc/check/arrays.hpp>
#include <gradc/check/gradcheck.hpp>
#include <gradc/check/options.hpp>
#include <gradc/check/second_order.hpp>
#include <gradc/check/static.hpp>
