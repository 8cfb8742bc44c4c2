#pragma once
/// \file
/// The math layer: every function the rules take their values from, for float, double
/// and xsimd batches (and, through each type's own functions, complex numbers, dual
/// numbers and tensors), with C's values on batches where xsimd's differ.

#include <gradc/math/erfinv.hpp>
#include <gradc/math/error_function.hpp>
#include <gradc/math/exponential.hpp>
#include <gradc/math/hyperbolic.hpp>
#include <gradc/math/logarithm.hpp>
#include <gradc/math/logistic.hpp>
#include <gradc/math/polar.hpp>
#include <gradc/math/power.hpp>
#include <gradc/math/standard.hpp>
