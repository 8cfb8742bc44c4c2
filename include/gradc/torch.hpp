#pragma once
/// \file
/// Everything a port of LibTorch autograd code uses, in one header: the dynamic mode
/// (<gradc/autograd.hpp>) and gradcheck (<gradc/check.hpp>). Port by writing
/// `namespace torch = gradc;` in your own code (docs/dynamic.md, "Porting from LibTorch");
/// this header does not define `torch` itself, so it can be included next to LibTorch.

#include <gradc/autograd.hpp>
#include <gradc/check.hpp>
