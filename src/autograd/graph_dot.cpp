// The backward graph as a Graphviz picture (graph_dot.hpp). The walk is a loop over an
// explicit stack, not a recursion: a graph of a long loop is as deep as it is long
// (graph_release.cpp frees such graphs the same way).
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <gradc/autograd/graph_dot.hpp>
#include <gradc/autograd/node.hpp>
#include <gradc/autograd/saved_variable.hpp>
#include <gradc/autograd/tensor_impl.hpp>
#include <gradc/graphviz.hpp>

namespace gradc::autograd {

namespace {

using gradc::detail::dot_quoted;

// "[2, 3] float64", as torchviz labels tensors (shape, then dtype).
std::string shape_and_dtype(const Tensor& t) {
    return shape_string(t.sizes()) + " " + std::string(to_string(t.dtype()));
}

// "pre-hooks: 2" on a line of its own, nothing for none.
std::string count_line(std::string_view what, std::size_t count) {
    return count == 0 ? std::string() : "\n" + std::string(what) + ": " + std::to_string(count);
}

class dot_writer {
public:
    explicit dot_writer(const named_tensors& names) : names_(names) {}

    std::string draw(const tensor_list& roots) {
        out_ = "digraph autograd {\n"
               "  node [shape=box, style=filled, fontname=\"Helvetica\", fontsize=11];\n"
               "  edge [fontname=\"Helvetica\", fontsize=10];\n";
        for (std::size_t i = 0; i < roots.size(); ++i) draw_root(i, roots[i]);
        while (!pending_.empty()) {
            const std::shared_ptr<Node> node = std::move(pending_.back());
            pending_.pop_back();
            draw_node(node);
        }
        return out_ + "}\n";
    }

private:
    // The name `names` gives `t`, or the empty string. A saved output is an alias of the
    // tensor (saved_variable.hpp), found by its grad_fn and output number.
    std::string name_of(const Tensor& t) const {
        for (const auto& [name, named] : names_) {
            if (!named.defined()) continue;
            if (named.is_same(t)) return name;
            if (named.grad_fn() && named.grad_fn() == t.grad_fn() && named.output_nr() == t.output_nr()) return name;
        }
        return {};
    }

    // The label of a tensor: its name if it has one, else `fallback`; then shape and dtype.
    std::string tensor_label(const Tensor& t, const std::string& fallback) const {
        const std::string name = name_of(t);
        const std::string& first = name.empty() ? fallback : name;
        return first.empty() ? shape_and_dtype(t) : first + "\n" + shape_and_dtype(t);
    }

    // The DOT id of a node, numbering nodes in the order they are first reached; a new node
    // is queued to be drawn.
    std::string id_of(const std::shared_ptr<Node>& node) {
        const auto [it, inserted] = ids_.try_emplace(node.get(), ids_.size());
        if (inserted) pending_.push_back(node);
        return "n" + std::to_string(it->second);
    }

    void draw_root(std::size_t i, const Tensor& t) {
        const std::string id = "out" + std::to_string(i);
        if (!t.defined()) {
            out_ += "  " + id + " [label=" + dot_quoted("output " + std::to_string(i) + "\nundefined") +
                    ", fillcolor=darkolivegreen1];\n";
            return;
        }
        std::string note;
        if (!t.grad_fn() && !t.requires_grad()) note = "\n(no graph: does not require grad)";
        out_ += "  " + id + " [label=" + dot_quoted(tensor_label(t, "output " + std::to_string(i)) + note) +
                ", fillcolor=darkolivegreen1];\n";
        if (const auto& fn = t.grad_fn()) {
            out_ += "  " + id_of(fn) + " -> " + id + ";\n";
        } else if (t.requires_grad() && t.impl()->autograd) {
            // A leaf asked for itself: its AccumulateGrad if one exists (none is created).
            if (auto acc = t.impl()->autograd->grad_accumulator.lock()) out_ += "  " + id + " -> " + id_of(acc) + ";\n";
        }
    }

    void draw_node(const std::shared_ptr<Node>& node) {
        const std::string id = "n" + std::to_string(ids_.at(node.get()));
        const Node::HookCounts hooks = node->hook_counts();
        const std::string label = node->name() + count_line("pre-hooks", hooks.pre) + count_line("post-hooks", hooks.post) +
                                  count_line("tensor hooks", hooks.tensor) +
                                  count_line("retain_grad", hooks.retained_grads);
        out_ += "  " + id + " [label=" + dot_quoted(label) + ", fillcolor=lightgrey];\n";
        if (const auto* acc = dynamic_cast<const AccumulateGrad*>(node.get())) draw_leaf(id, acc->variable());
        draw_saved(id, node);
        for (const Edge& e : node->next_edges())
            if (e.is_valid()) out_ += "  " + id_of(e.function) + " -> " + id + ";\n";
    }

    void draw_leaf(const std::string& node_id, const Tensor& leaf) {
        if (!leaf.defined()) return;
        std::string label = tensor_label(leaf, "");
        if (AutogradMeta* meta = leaf.impl()->autograd.get()) {
            std::lock_guard<std::mutex> lock(meta->mutex);
            label += count_line("tensor hooks", meta->hooks.size()) +
                     count_line("post-accumulate-grad hooks", meta->post_accumulate_grad_hooks.size());
        }
        const std::string id = node_id + "_leaf";
        out_ += "  " + id + " [label=" + dot_quoted(label) + ", fillcolor=lightblue];\n";
        out_ += "  " + id + " -> " + node_id + ";\n";
    }

    // Under the node's lock, as Node::saved_tensors reads them; a hooked tensor is not
    // unpacked (its unpack hook is user code, and may be costly: it may bring the tensor
    // back from disk).
    void draw_saved(const std::string& node_id, const std::shared_ptr<Node>& node) {
        const auto entries = node->saved_variable_entries();
        std::lock_guard<std::mutex> lock(node->mutex());
        for (std::size_t k = 0; k < entries.size(); ++k) {
            const auto& [name, var] = entries[k];
            std::string title = name, what;
            if (var->was_freed()) {
                what = "freed by backward\n(retain_graph=false)";
            } else if (var->has_hooks()) {
                what = "packed by a saved-tensor hook";
            } else {
                try {
                    const Tensor saved = var->unpack(node);
                    const std::string saved_name = name_of(saved);
                    if (!saved_name.empty()) title += " = " + saved_name;
                    what = shape_and_dtype(saved);
                } catch (const Error&) {
                    what = "modified in place since saved\n(backward would fail)";
                }
            }
            const std::string id = node_id + "_s" + std::to_string(k);
            out_ += "  " + id + " [label=" + dot_quoted(title + "\n" + what) + ", fillcolor=orange];\n";
            out_ += "  " + id + " -> " + node_id + " [style=dotted, arrowhead=none];\n";
        }
    }

    const named_tensors& names_;
    std::unordered_map<const Node*, std::size_t> ids_;
    std::vector<std::shared_ptr<Node>> pending_;
    std::string out_;
};

}  // namespace

std::string to_dot(const tensor_list& roots, const named_tensors& names) { return dot_writer(names).draw(roots); }

std::string to_dot(const Tensor& root, const named_tensors& names) { return to_dot(tensor_list{root}, names); }

}  // namespace gradc::autograd
