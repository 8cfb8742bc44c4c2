// Saved tensors ("Autograd mechanics" notes, "Saved tensors" and "Hooks for saved
// tensors"): inspecting what a node saved, per-tensor hooks through the raw handle, and the
// thread-local SavedTensorsHooks guard.
#include <algorithm>
#include <any>
#include <cmath>
#include <cstdint>
#include <functional>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "support.hpp"

using namespace testing;
using Catch::Matchers::Contains;
using gradc::Tensor;
using gradc::autograd::SavedTensorsHooks;

namespace {

// A file that deletes itself with its last owner (the notes' SelfDeletingTempFile).
struct TempFile {
    std::filesystem::path path;
    gradc::Shape sizes;
    explicit TempFile(const Tensor& t) : sizes(t.sizes()) {
        static std::atomic<int> counter{0};
        path = std::filesystem::temp_directory_path() /
               ("gradc_saved_" + std::to_string(reinterpret_cast<std::uintptr_t>(this)) + "_" + std::to_string(counter++) + ".bin");
        const auto v = values(t);
        std::ofstream out(path, std::ios::binary);
        out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(double)));
    }
    ~TempFile() { std::filesystem::remove(path); }
    Tensor load() const {
        std::size_t n = 1;
        for (auto d : sizes) n *= static_cast<std::size_t>(d);
        std::vector<double> v(n);
        std::ifstream in(path, std::ios::binary);
        in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(double)));
        return gradc::from_vector(v, sizes);
    }
};

std::vector<double> grad_of(const std::function<Tensor(const Tensor&)>& f, std::vector<double> x0) {
    auto x = gradc::from_vector(x0, {static_cast<std::int64_t>(x0.size())}, gradc::requires_grad());
    f(x).sum().backward();
    return values(x.grad());
}

Tensor model(const Tensor& x) { return (gradc::exp(x) * gradc::sin(x) + x * x).pow(2.0) / 3.0; }

struct Cube : gradc::autograd::Function<Cube> {
    static Tensor forward(gradc::autograd::AutogradContext* ctx, Tensor x) {
        ctx->save_for_backward({x});
        return x * x * x;
    }
    static gradc::tensor_list backward(gradc::autograd::AutogradContext* ctx, gradc::tensor_list g) {
        auto x = ctx->get_saved_variables()[0];
        return {g[0] * 3.0 * x * x};
    }
};

}  // namespace

TEST_CASE("a node's saved tensors can be inspected by name", "[autograd][saved]") {
    auto x = gradc::tensor({0.5, -1.0, 2.0}, gradc::requires_grad());
    auto y = gradc::sin(x);
    CHECK(y.grad_fn()->saved_names() == std::vector<std::string>{"self"});
    auto s = y.grad_fn()->saved("self");
    CHECK(s.is_same(x));  // as `x is y.grad_fn._saved_self` in PyTorch
    CHECK_THAT(values(s), approx(values(x)));

    auto e = gradc::exp(x);
    CHECK(e.grad_fn()->saved_names() == std::vector<std::string>{"result"});
    auto r = e.grad_fn()->saved("result");
    CHECK_FALSE(r.is_same(e));  // a different tensor object with the same values
    CHECK_THAT(values(r), approx(values(e)));
    CHECK(r.grad_fn() == e.grad_fn());

    auto w = gradc::tensor({2.0, 3.0, 4.0}, gradc::requires_grad());
    auto m = x * w;
    auto saved = m.grad_fn()->saved_tensors();
    REQUIRE(saved.size() == 2);
    CHECK(saved[0].first == "self");
    CHECK(saved[0].second.is_same(x));
    CHECK(saved[1].first == "other");
    CHECK(saved[1].second.is_same(w));
    auto sq = x * x;  // both operands are x: self and other
    CHECK(sq.grad_fn()->saved_names() == std::vector<std::string>{"self", "other"});
    CHECK_THROWS_WITH(m.grad_fn()->saved("result"), Contains("has no saved tensor named 'result'") && Contains("self, other"));
}

TEST_CASE("saved tensors freed by backward report the retain_graph error", "[autograd][saved]") {
    auto x = gradc::tensor({0.5, 1.5}, gradc::requires_grad());
    auto y = gradc::exp(x);
    auto raw = y.grad_fn()->raw_saved("result");
    y.sum().backward(Tensor(), true);
    CHECK_THAT(values(y.grad_fn()->saved("result")), approx(values(y)));  // retained
    y.sum().backward();
    CHECK_THROWS_WITH(y.grad_fn()->saved("result"), Contains("retain_graph=true"));
    CHECK_THROWS_WITH(raw.unpack(), Contains("retain_graph=true"));
    CHECK_THROWS_WITH(raw.register_hooks([](const Tensor& t) { return std::any(t); },
                                         [](const std::any& a) { return std::any_cast<Tensor>(a); }),
                      Contains("already freed"));
}

TEST_CASE("register_hooks on a raw saved tensor packs at once and unpacks on use", "[autograd][saved]") {
    auto x = gradc::tensor({0.5, -1.0, 2.0}, gradc::requires_grad());
    auto y = x.pow(2.0);
    int packs = 0, unpacks = 0;
    auto raw = y.grad_fn()->raw_saved("self");
    raw.register_hooks([&](const Tensor& t) { ++packs; return std::any(values(t)); },
                       [&](const std::any& a) { ++unpacks; return gradc::from_vector(std::any_cast<std::vector<double>>(a), {3}); });
    CHECK(packs == 1);
    CHECK(unpacks == 0);
    CHECK(raw.has_hooks());
    CHECK_THAT(values(y.grad_fn()->saved("self")), approx({0.5, -1.0, 2.0}));
    CHECK(unpacks == 1);
    y.sum().backward();
    CHECK(packs == 1);
    CHECK(unpacks == 2);
    CHECK_THAT(values(x.grad()), approx({1.0, -2.0, 4.0}));
    auto z = x.pow(2.0);
    auto raw2 = z.grad_fn()->raw_saved("self");
    raw2.register_hooks([](const Tensor& t) { return std::any(t); }, [](const std::any& a) { return std::any_cast<Tensor>(a); });
    CHECK_THROWS_WITH(raw2.register_hooks([](const Tensor& t) { return std::any(t); },
                                          [](const std::any& a) { return std::any_cast<Tensor>(a); }),
                      Contains("already has hooks"));
}

TEST_CASE("SavedTensorsHooks: pack once per saved tensor, unpack as needed, same gradients", "[autograd][saved]") {
    const std::vector<double> x0{0.3, -0.7, 1.1, 2.0};
    const auto plain = grad_of(model, x0);
    int packs = 0, unpacks = 0;
    auto x = gradc::from_vector(x0, {4}, gradc::requires_grad());
    Tensor loss;
    std::size_t saved_count = 0;
    {
        SavedTensorsHooks guard([&](const Tensor& t) { ++packs; return std::any(t); },
                                [&](const std::any& a) { ++unpacks; return std::any_cast<Tensor>(a); });
        CHECK(SavedTensorsHooks::is_enabled());
        loss = model(x).sum();
    }
    CHECK_FALSE(SavedTensorsHooks::is_enabled());
    // Count the defined saved tensors of the graph.
    std::vector<std::shared_ptr<gradc::autograd::Node>> todo{loss.grad_fn()};
    std::vector<gradc::autograd::Node*> seen;
    while (!todo.empty()) {
        auto n = todo.back();
        todo.pop_back();
        if (std::find(seen.begin(), seen.end(), n.get()) != seen.end()) continue;
        seen.push_back(n.get());
        saved_count += n->saved_variable_entries().size();
        for (auto& e : n->next_edges())
            if (e.function) todo.push_back(e.function);
    }
    CHECK(saved_count > 0);
    CHECK(static_cast<std::size_t>(packs) == saved_count);
    CHECK(unpacks == 0);
    loss.backward();
    CHECK(static_cast<std::size_t>(unpacks) == saved_count);  // each saved tensor read once by backward
    CHECK(static_cast<std::size_t>(packs) == saved_count);
    CHECK_THAT(values(x.grad()), approx(plain));
}

TEST_CASE("SavedTensorsHooks: a pack hook that writes a temporary file", "[autograd][saved]") {
    const std::vector<double> x0{0.3, -0.7, 1.1, 2.0};
    const auto plain = grad_of(model, x0);
    std::vector<std::filesystem::path> files;
    auto x = gradc::from_vector(x0, {4}, gradc::requires_grad());
    Tensor loss;
    {
        SavedTensorsHooks guard(
            [&](const Tensor& t) {
                auto f = std::make_shared<TempFile>(t);
                files.push_back(f->path);
                return std::any(f);
            },
            [](const std::any& a) { return std::any_cast<std::shared_ptr<TempFile>>(a)->load(); });
        loss = model(x).sum();
    }
    REQUIRE_FALSE(files.empty());
    for (auto& p : files) CHECK(std::filesystem::exists(p));
    loss.backward(Tensor(), true);
    CHECK_THAT(values(x.grad()), approx(plain));
    x.mutable_grad() = Tensor();
    loss.backward();  // the files are read again, then freed with the saved tensors
    CHECK_THAT(values(x.grad()), approx(plain));
    for (auto& p : files) CHECK_FALSE(std::filesystem::exists(p));
}

TEST_CASE("SavedTensorsHooks: modifying pack's input in place is an error", "[autograd][saved]") {
    auto x = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    auto h = x * 2.0;
    SavedTensorsHooks guard([](const Tensor& t) { Tensor(t).mul_(2.0); return std::any(t); },
                            [](const std::any& a) { return std::any_cast<Tensor>(a); });
    CHECK_THROWS_WITH(gradc::sin(h), Contains("pack hook is modifying its input in place"));
}

TEST_CASE("SavedTensorsHooks: nested guards, the innermost wins", "[autograd][saved]") {
    auto x = gradc::tensor({0.5, 1.5}, gradc::requires_grad());
    int outer = 0, inner = 0;
    SavedTensorsHooks g1([&](const Tensor& t) { ++outer; return std::any(t); },
                         [](const std::any& a) { return std::any_cast<Tensor>(a); });
    auto a = gradc::sin(x);
    {
        SavedTensorsHooks g2([&](const Tensor& t) { ++inner; return std::any(t); },
                             [](const std::any& a2) { return std::any_cast<Tensor>(a2); });
        auto b = gradc::cos(a);
        CHECK(inner == 1);
    }
    auto c = gradc::exp(a);
    CHECK(outer == 2);
    CHECK(inner == 1);
}

TEST_CASE("SavedTensorsHooks are thread-local", "[autograd][saved]") {
    std::atomic<int> packs{0};
    SavedTensorsHooks guard([&](const Tensor& t) { ++packs; return std::any(t); },
                            [](const std::any& a) { return std::any_cast<Tensor>(a); });
    bool other_enabled = true;
    std::vector<double> other_grad;
    std::thread th([&] {
        other_enabled = SavedTensorsHooks::is_enabled();
        auto x = gradc::tensor({0.5, 1.5}, gradc::requires_grad());
        auto y = gradc::exp(x) * x;
        y.sum().backward();
        other_grad = values(x.grad());
    });
    th.join();
    CHECK_FALSE(other_enabled);
    CHECK(packs == 0);
    CHECK_THAT(other_grad, approx({std::exp(0.5) * 1.5, std::exp(1.5) * 2.5}));
    auto x = gradc::tensor({0.5}, gradc::requires_grad());
    auto y = gradc::exp(x);
    CHECK(packs == 1);
}

TEST_CASE("hooked saved tensors keep the version check and support double backward", "[autograd][saved]") {
    auto x = gradc::tensor({0.5, 1.5}, gradc::requires_grad());
    Tensor y, h;
    {
        SavedTensorsHooks guard([](const Tensor& t) { return std::any(t.clone()); },
                                [](const std::any& a) { return std::any_cast<Tensor>(a); });
        h = x * 1.0;
        y = gradc::sin(h);
    }
    h.add_(1.0);
    CHECK_THROWS_WITH(y.sum().backward(), Contains("modified by an inplace operation"));

    Tensor g;
    {
        SavedTensorsHooks guard([](const Tensor& t) { return std::any(t.clone()); },
                                [](const std::any& a) { return std::any_cast<Tensor>(a); });
        auto z = (x * x * x).sum();  // dz/dx = 3x², d²/dx² = 6x
        g = gradc::autograd::grad({z}, {x}, {}, std::nullopt, true)[0];
    }
    CHECK_THAT(values(g), approx({0.75, 6.75}));
    auto gg = gradc::autograd::grad({g.sum()}, {x})[0];
    CHECK_THAT(values(gg), approx({3.0, 9.0}));
}

TEST_CASE("a custom function's saved tensors are hooked and inspectable", "[autograd][saved]") {
    auto x = gradc::tensor({2.0, -1.0}, gradc::requires_grad());
    int packs = 0, unpacks = 0;
    Tensor y;
    {
        SavedTensorsHooks guard([&](const Tensor& t) { ++packs; return std::any(t); },
                                [&](const std::any& a) { ++unpacks; return std::any_cast<Tensor>(a); });
        y = Cube::apply(x);
    }
    CHECK(packs == 1);
    CHECK(y.grad_fn()->saved_names() == std::vector<std::string>{"saved0"});
    CHECK_THAT(values(y.grad_fn()->saved("saved0")), approx({2.0, -1.0}));
    y.sum().backward();
    CHECK(unpacks == 2);
    CHECK_THAT(values(x.grad()), approx({12.0, 3.0}));
}
