#pragma once
/// \file
/// Text for Graphviz's DOT language, shared by the pictures of compiled kernels
/// (lower/dot.hpp) and of the dynamic mode's backward graphs (autograd/graph_dot.hpp).

#include <string>
#include <string_view>

namespace gradc::detail {

/// `text` as a DOT string literal: quotes and backslashes escaped, a line break as `\n`.
inline std::string dot_quoted(std::string_view text) {
    std::string out = "\"";
    for (const char ch : text) {
        if (ch == '\n') {
            out += "\\n";
            continue;
        }
        if (ch == '"' || ch == '\\') out += '\\';
        out += ch;
    }
    return out + "\"";
}

}  // namespace gradc::detail
