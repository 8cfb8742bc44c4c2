#pragma once
/// \file
/// `GRADC_ALWAYS_INLINE`: the one way gradc forces code inline. Before a function
/// (`GRADC_ALWAYS_INLINE inline T f(...)`, also for member and static functions) and after
/// a lambda's parameter list (`[&](auto x) GRADC_ALWAYS_INLINE { ... }`).
///
/// Note [Forced inlining]. Three kinds of code are forced inline, each because the
/// compilers' heuristics, left alone, cost a large factor in the batch loops:
///  - the lowered programs' sweeps (lower/steps.hpp, lower/program.hpp): the batch loop
///    must see one straight-line body with its values in registers; g++ kept a large
///    kernel's sweeps out of line and sent every node's value through memory. The steps
///    themselves are not forced: they are small and inlined anyway, and forcing them made
///    g++'s inliner cost seconds per thousand nodes (docs/architecture.md, "Compile time");
///  - every rule's `eval` and `partial`, and the helpers that give SIMD batches C's
///    special values and accurate partials (rules/): each helper tests its lanes and
///    branches, which made g++ keep it out of line in large kernels, and in a file with
///    several kernels g++'s budget for growth by inlining ran out and it called
///    `tanh::eval` out of line (docs/benchmark-history.md, "Cost of keeping NaN and huge
///    lanes from xsimd's integer conversion"); an out-of-line call passes its batch
///    operands through memory;
///  - the dual numbers' operations (rules/dual.hpp): a few instructions each, in programs
///    large enough that calls stayed in the batch loop, every dual of batches passed
///    through memory (4× slower).
/// A GNU attribute rather than `[[gnu::always_inline]]`: after a lambda's parameter list a
/// standard attribute appertains to the lambda's type and is ignored, where the GNU one
/// applies to its call operator (g++ 12, clang 14).

#define GRADC_ALWAYS_INLINE __attribute__((always_inline))
