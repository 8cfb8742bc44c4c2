#pragma once
/// \file
/// Loops whose count is known when the kernel runs: `gradc::sum_over(n, f)`,
/// `gradc::concat_over(n, f)`, with n an integer or `gradc::rows(M)`, `gradc::cols(M)`,
/// `gradc::size(v)`. Each body is lowered once, as a program of its own, and run n times.

#include <gradc/loops/body.hpp>
#include <gradc/loops/body_call.hpp>
#include <gradc/loops/body_part.hpp>
#include <gradc/loops/chained_loop.hpp>
#include <gradc/loops/checkpoints.hpp>
#include <gradc/loops/loop_rule.hpp>
#include <gradc/loops/loop.hpp>
#include <gradc/loops/while_loop.hpp>
#include <gradc/loops/sum_over.hpp>
