#pragma once
// Checks that a text is a DOT graph Graphviz accepts: with `dot` on the PATH, by running
// `dot -Tsvg` on it; without, by a scan of its structure (one `digraph NAME {`, closing
// brace last, quotes and brackets balanced outside string literals).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

namespace testing {

inline bool graphviz_available() { return std::system("command -v dot > /dev/null 2>&1") == 0; }

/// The empty string if `text` is a valid DOT graph, else what is wrong.
inline std::string dot_syntax_error(const std::string& text) {
    if (text.rfind("digraph ", 0) != 0) return "does not start with 'digraph '";
    int braces = 0, brackets = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char ch = text[i];
        if (in_string) {
            if (ch == '\\') ++i;
            else if (ch == '"') in_string = false;
            continue;
        }
        if (ch == '"') in_string = true;
        if (ch == '{') ++braces;
        if (ch == '}' && --braces < 0) return "a '}' without '{'";
        if (ch == '[') ++brackets;
        if (ch == ']' && --brackets < 0) return "a ']' without '['";
    }
    if (in_string) return "an unterminated string";
    if (braces != 0 || brackets != 0) return "unbalanced braces or brackets";
    if (text.find_last_not_of("\n") != text.rfind('}')) return "text after the closing brace";
    if (!graphviz_available()) return "";
    const std::string path = "gradc_dot_syntax_" + std::to_string(::getpid()) + ".dot";
    std::ofstream(path) << text;
    const int status = std::system(("dot -Tsvg " + path + " -o /dev/null").c_str());
    std::remove(path.c_str());
    return status == 0 ? "" : "dot -Tsvg rejects it";
}

}  // namespace testing
