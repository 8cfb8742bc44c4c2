#pragma once
/// \file
/// A program's flat node list cut into runs of `piece_nodes` nodes: run P holds the nodes
/// of piece P (lower/program.hpp), which expands over them as a one-body program expands
/// over all nodes.
///
/// Why: g++ 12 has no builtin that indexes a pack, so finding node I by position is a
/// deduction against a class with one base per node (expr/pack.hpp), whose cost grows
/// with the number of nodes, and a piece that looked each of its nodes up that way
/// among all of them paid it per node (docs/architecture.md, "Compile time"). Cutting
/// the list costs one deduction per run, and a piece then looks nothing up.

#include <cstddef>

#include <gradc/expr/pack.hpp>
#include <gradc/lower/flat.hpp>

namespace gradc::lower {

/// Nodes in a piece of a large program, and in a run.
inline constexpr std::size_t piece_nodes = 128;

// How a program's node list is cut into runs: machinery of its pieces, left out of the
// API reference.
/// \cond INTERNAL
/// Run of nodes (a piece deduces Nodes from it).
template <class... Nodes>
struct node_run {};

/// The runs of a program, in order.
template <class... Runs>
struct node_runs {
    template <std::size_t P>
    using at = pack_element<P, Runs...>;
    template <class Run>
    using append = node_runs<Runs..., Run>;
};

// A run's 128 parameters, written out: a partial specialization that names them takes
// the first 128 nodes of a list in one deduction.
// clang-format off
#define GRADC_RUN_PARAMETERS_16(p)                                                                   \
    class p##0, class p##1, class p##2, class p##3, class p##4, class p##5, class p##6, class p##7,  \
    class p##8, class p##9, class p##a, class p##b, class p##c, class p##d, class p##e, class p##f
#define GRADC_RUN_ARGUMENTS_16(p) \
    p##0, p##1, p##2, p##3, p##4, p##5, p##6, p##7, p##8, p##9, p##a, p##b, p##c, p##d, p##e, p##f
#define GRADC_RUN_PARAMETERS                                                                         \
    GRADC_RUN_PARAMETERS_16(A), GRADC_RUN_PARAMETERS_16(B), GRADC_RUN_PARAMETERS_16(C),              \
    GRADC_RUN_PARAMETERS_16(D), GRADC_RUN_PARAMETERS_16(E), GRADC_RUN_PARAMETERS_16(F),              \
    GRADC_RUN_PARAMETERS_16(G), GRADC_RUN_PARAMETERS_16(H)
#define GRADC_RUN_ARGUMENTS                                                                          \
    GRADC_RUN_ARGUMENTS_16(A), GRADC_RUN_ARGUMENTS_16(B), GRADC_RUN_ARGUMENTS_16(C),                 \
    GRADC_RUN_ARGUMENTS_16(D), GRADC_RUN_ARGUMENTS_16(E), GRADC_RUN_ARGUMENTS_16(F),                 \
    GRADC_RUN_ARGUMENTS_16(G), GRADC_RUN_ARGUMENTS_16(H)
// clang-format on

/// The first run of a list and the rest: all of it when fewer than 128 nodes are left.
template <class Flat>
struct cut_run;
template <class... Nodes>
struct cut_run<flat<Nodes...>> {
    using run = node_run<Nodes...>;
    using rest = flat<>;
};
template <GRADC_RUN_PARAMETERS, class... Rest>
struct cut_run<flat<GRADC_RUN_ARGUMENTS, Rest...>> {
    using run = node_run<GRADC_RUN_ARGUMENTS>;
    using rest = flat<Rest...>;
};
static_assert(piece_nodes == 128, "gradc: cut_run writes out 128 parameters, one piece's nodes");

#undef GRADC_RUN_PARAMETERS_16
#undef GRADC_RUN_ARGUMENTS_16
#undef GRADC_RUN_PARAMETERS
#undef GRADC_RUN_ARGUMENTS

/// Flat cut into runs of 128 nodes, the last one shorter (recursion one level per run).
template <class Flat, class Done = node_runs<>>
struct runs_of {
    using cut = cut_run<Flat>;
    using type = typename runs_of<typename cut::rest, typename Done::template append<typename cut::run>>::type;
};
template <class... Done>
struct runs_of<flat<>, node_runs<Done...>> {
    using type = node_runs<Done...>;
};
/// \endcond

}  // namespace gradc::lower
