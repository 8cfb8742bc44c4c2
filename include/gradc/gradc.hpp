#pragma once
/// \file
/// gradc: automatic differentiation for numerical C++.
/// Static mode: build an expression from gradc::variables<N>(), gradc::compile it, call
/// the kernel's value, gradient, jvp, vjp and jacobian programs.

#include <gradc/compile.hpp>
#include <gradc/error.hpp>
#include <gradc/expr.hpp>
#include <gradc/loops.hpp>
#include <gradc/lower.hpp>
#include <gradc/rules.hpp>

// With the dynamic mode also included: the operations that join the two (gradc/fused.hpp).
#define GRADC_STATIC_MODE_INCLUDED
#ifdef GRADC_DYNAMIC_MODE_INCLUDED
#include <gradc/fused.hpp>
#endif
