#pragma once
/// Every primitive of include/gradc/rules/list.hpp, the rule table's one list, has the
/// differential tester's long-double reference (reference.hpp) and its term scale
/// (term_scale.hpp), under the name the generated expressions use (the tensor name; the
/// generator reads the same list, tools/difftest/generate.py). A rule missing from either
/// fails the build here, with a message naming it, instead of going untested.

#include <gradc/rules/list.hpp>

#include "reference.hpp"
#include "term_scale.hpp"

namespace gradc::difftest::reference::coverage {

// Unqualified calls with a dependent argument: a name missing here makes the concept
// false (and the static_assert speak), where a qualified name would stop the compiler at
// its own error first.
#define GRADC_DIFFTEST_UNARY_COVERED(rule, tensor_op)                                                       \
    template <class R, class S>                                                                             \
    concept reference_of_##rule = requires(R r, S s) {                                                     \
        tensor_op(r);                                                                                       \
        tensor_op(s);                                                                                       \
    };                                                                                                      \
    static_assert(reference_of_##rule<long double, term_scale<1>>,                                          \
                  "tests/difftest/reference.hpp or term_scale.hpp has no `" #tensor_op "` (a long-double "  \
                  "reference and a term scale) for the rule " #rule " of include/gradc/rules/list.hpp");
#define GRADC_DIFFTEST_BINARY_COVERED(rule, tensor_op)                                                      \
    template <class R, class S>                                                                             \
    concept reference_of_##rule = requires(R r, S s) {                                                     \
        tensor_op(r, r);                                                                                    \
        tensor_op(s, s);                                                                                    \
    };                                                                                                      \
    static_assert(reference_of_##rule<long double, term_scale<1>>,                                          \
                  "tests/difftest/reference.hpp or term_scale.hpp has no `" #tensor_op "` (a long-double "  \
                  "reference and a term scale) for the rule " #rule " of include/gradc/rules/list.hpp");
GRADC_UNARY_PRIMITIVES(GRADC_DIFFTEST_UNARY_COVERED)
GRADC_BINARY_PRIMITIVES(GRADC_DIFFTEST_BINARY_COVERED)
#undef GRADC_DIFFTEST_UNARY_COVERED
#undef GRADC_DIFFTEST_BINARY_COVERED

}  // namespace gradc::difftest::reference::coverage
