#pragma once
/// \file
/// gradc::simd: compiled kernels evaluated over arrays of points with xsimd batches, one
/// point per lane: `value_batch`, `gradient_batch`, `jvp_batch`, and `map_reduce` for
/// likelihood-style sums (see simd/batch_interface.hpp); run-time architecture dispatch
/// for portable builds in simd/dispatch.hpp (docs/simd.md).

#include <gradc/lower.hpp>
#include <gradc/simd/arguments.hpp>
#include <gradc/simd/batch_interface.hpp>
#include <gradc/simd/broadcast.hpp>
#include <gradc/simd/config.hpp>
#include <gradc/simd/dispatch.hpp>
#include <gradc/simd/map_reduce.hpp>
#include <gradc/math.hpp>
#include <gradc/simd/point_inputs.hpp>
#include <gradc/simd/second_order_interface.hpp>
#include <gradc/simd/second_order_sweeps.hpp>
#include <gradc/simd/sweeps.hpp>
#include <gradc/simd/tail.hpp>
