#pragma once
/// \file
/// Where the two modes meet: `gradc::autograd::fuse(kernel)` runs a compiled static kernel
/// as one operation of the dynamic graph (fused/fuse.hpp). Included by <gradc/gradc.hpp>
/// and <gradc/autograd.hpp> when both are (by whichever comes second), so that a program
/// of one mode alone compiles none of the other.

#include <gradc/autograd.hpp>
#include <gradc/gradc.hpp>
#include <gradc/fused/fuse.hpp>
