#pragma once
/// \file
/// Step 1 of lowering: the outputs' graphs merged into one, in output order (a subtree
/// shared by two outputs is one node), and each output's node in it. The graphs were
/// built with the expressions (expr/graph.hpp), so nothing here walks an expression.

#include <cstddef>
#include <utility>

#include <gradc/expr/graph.hpp>
#include <gradc/lower/flat.hpp>

namespace gradc::lower {

template <class G, class OutputNodes, class... Outs>
struct merge_outputs {
    using graph = G;
    using output_nodes = OutputNodes;
};

template <class G, std::size_t... O, class Out, class... Rest>
struct merge_outputs<G, std::index_sequence<O...>, Out, Rest...> {
    using merged = graphs::merge<G, typename Out::graph>;
    using next = merge_outputs<typename merged::type,
                               std::index_sequence<O..., merged::positions::template at<Out::graph::size - 1>()>,
                               Rest...>;
    using graph = typename next::graph;
    using output_nodes = typename next::output_nodes;
};

/// The lowering of outputs Outs...: the flat program, each output's node, and the
/// number of literals.
template <class... Outs>
struct lowered {
    using merged = merge_outputs<graphs::empty_graph, std::index_sequence<>, Outs...>;
    using flat_type = typename flat_of<typename merged::graph>::type;
    using output_nodes = typename merged::output_nodes;
    enum : std::size_t { literal_count = merged::graph::literals };
};

}  // namespace gradc::lower
