// libFuzzer harness for the dynamic mode: the input bytes are decoded into a program over
// a pool of small tensors (creation, elementwise operations, views, in-place operations,
// reductions, grad modes, hooks, backward and autograd::grad with and without
// retain_graph and create_graph, double backward, detaching and dropping tensors).
//
// Also custom functions (whose backward may throw or return the wrong shape) and
// operations under saved-tensor hooks (whose pack hook may throw).
//
// What it checks, besides the sanitizers (address, undefined, leaks):
//  - the only exception an operation may throw is gradc::Error (a std::invalid_argument
//    from a hook counts as the hook's own);
//  - a failing operation leaves every tensor of the pool as it was: values, gradients
//    and version counters;
//  - forward mode agrees with reverse mode: for a short chain of operations from a
//    pool tensor's values, ⟨u, J·v⟩ from the dual tensors' tangent equals ⟨Jᵀ·u, v⟩ from
//    autograd::grad, wherever both are finite ("Forward-mode AD" in the autograd notes).
//
// Built by tests/fuzz/meson.build with clang's -fsanitize=fuzzer when available
// (scripts/fuzz runs it); the same file with -DGRADC_FUZZ_REPLAY is a plain program that
// runs every file of the seed corpus once (the test suite's corpus replay).

#include <algorithm>
#include <any>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <vector>

#include <gradc/autograd.hpp>

namespace {

/// Reads the input byte by byte; past its end, zeros.
class reader {
public:
    reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
    bool done() const { return at_ >= size_; }
    std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
    /// A small value from a byte, including the edge values the engine must survive.
    double value() {
        static constexpr double table[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -3.0, 1e-300, 1e300, 1e-310,
                                           __builtin_inf(), -__builtin_inf(), __builtin_nan("")};
        const std::uint8_t b = byte();
        return b < 13 ? table[b] : (double(b) - 128.0) / 16.0;
    }

    /// A weight of a tangent (v) or cotangent (u): a moderate number, 0 included. Edge
    /// values here test nothing of the engine: forward and reverse mode form the same
    /// products in other orders, and with a weight of 1e-300 one of them underflows where
    /// the other does not ((u·∂f/∂a)·c is 0 where u·(∂f/∂a·c) is not).
    double weight() { return (double(byte()) - 128.0) / 16.0; }

private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t at_ = 0;
};

/// What must not change when an operation fails: each tensor's values, gradient and
/// version counter (a backward pass that fails part way puts back what it had summed).
/// Taken before every statement, so it is a fingerprint of each tensor read in place
/// through its strides: copying every tensor of the pool into new tensors (detach,
/// contiguous, to) before every statement was a third of the fuzzer's time under
/// AddressSanitizer.
struct snapshot {
    struct entry {
        std::uint64_t values = 0, grad = 0;
        std::uint32_t version = 0;
        bool operator==(const entry&) const = default;
    };
    std::vector<entry> entries;
    bool same_as(const snapshot& o) const { return entries == o.entries; }
};

/// FNV-1a over the shape and every element's bits, with every NaN read as one NaN
/// (NaN != NaN, and a NaN's payload is not a value).
std::uint64_t fingerprint(const gradc::Tensor& t) {
    if (!t.defined()) return 0;
    std::uint64_t h = 1469598103934665603ull;
    const auto mix = [&h](std::uint64_t word) {
        for (int byte = 0; byte < 8; ++byte, word >>= 8) h = (h ^ (word & 0xff)) * 1099511628211ull;
    };
    const auto mix_real = [&mix](double x) {
        std::uint64_t bits;
        if (x != x) x = __builtin_nan("");
        std::memcpy(&bits, &x, sizeof bits);
        mix(bits);
    };
    const auto& sizes = t.sizes();
    const auto& strides = t.strides();
    for (const auto extent : sizes) mix(static_cast<std::uint64_t>(extent));
    mix(static_cast<std::uint64_t>(t.dtype()));
    const auto* base = static_cast<const unsigned char*>(t.raw_data());
    const std::int64_t n = t.numel();
    // The harness's statements make tensors of a few dimensions; a fixed array keeps the
    // fingerprint free of allocation.
    std::int64_t index[8] = {};
    const std::size_t dims = sizes.size();
    if (dims > 8) {
        std::fputs("fuzz_dynamic: a tensor of more than 8 dimensions; enlarge fingerprint's index\n", stderr);
        std::abort();
    }
    for (std::int64_t k = 0; k < n; ++k) {
        std::int64_t offset = 0;
        for (std::size_t d = 0; d < dims; ++d) offset += index[d] * strides[d];
        switch (t.dtype()) {
            case gradc::ScalarType::Bool: mix(reinterpret_cast<const bool*>(base)[offset]); break;
            case gradc::ScalarType::Int64: mix(static_cast<std::uint64_t>(reinterpret_cast<const std::int64_t*>(base)[offset])); break;
            case gradc::ScalarType::Float32: mix_real(reinterpret_cast<const float*>(base)[offset]); break;
            case gradc::ScalarType::Float64: mix_real(reinterpret_cast<const double*>(base)[offset]); break;
            case gradc::ScalarType::ComplexFloat: {
                const auto z = reinterpret_cast<const std::complex<float>*>(base)[offset];
                mix_real(z.real()), mix_real(z.imag());
                break;
            }
            case gradc::ScalarType::ComplexDouble: {
                const auto z = reinterpret_cast<const std::complex<double>*>(base)[offset];
                mix_real(z.real()), mix_real(z.imag());
                break;
            }
        }
        for (std::size_t d = dims; d-- > 0;) {  // the next index, last dimension fastest
            if (++index[d] < sizes[d]) break;
            index[d] = 0;
        }
    }
    return h;
}

std::vector<double> contents(const gradc::Tensor& t) {
    if (!t.defined()) return {};
    gradc::NoGradGuard no_grad;
    const gradc::Tensor c = t.detach().contiguous().to(gradc::kFloat64);
    std::vector<double> v(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
    // NaN != NaN: compare bit patterns through a canonical NaN.
    for (double& x : v)
        if (x != x) x = 12345.678;
    return v;
}

snapshot take(const std::vector<gradc::Tensor>& pool) {
    snapshot s;
    s.entries.reserve(pool.size());
    // Reading the .grad() of a non-leaf that does not retain it warns (and filled the log).
    for (const auto& t : pool)
        s.entries.push_back({fingerprint(t), fingerprint(t.is_leaf() || t.retains_grad() ? t.grad() : gradc::Tensor()), t._version()});
    return s;
}

gradc::Tensor pick(reader& in, const std::vector<gradc::Tensor>& pool) { return pool[in.byte() % pool.size()]; }

gradc::Tensor unary(std::uint8_t which, const gradc::Tensor& a) {
    switch (which % 12) {
        case 0: return gradc::exp(a);
        case 1: return gradc::log(a);
        case 2: return gradc::sqrt(a);
        case 3: return gradc::tanh(a);
        case 4: return gradc::sigmoid(a);
        case 5: return gradc::abs(a);
        case 6: return gradc::relu(a);
        case 7: return gradc::sin(a);
        case 8: return gradc::erf(a);
        case 9: return gradc::expm1(a);
        case 10: return -a;
        default: return a.clone();
    }
}

gradc::Tensor binary(std::uint8_t which, const gradc::Tensor& a, const gradc::Tensor& b) {
    switch (which % 8) {
        case 0: return a + b;
        case 1: return a - b;
        case 2: return a * b;
        case 3: return a / b;
        case 4: return gradc::pow(a, b);
        case 5: return gradc::maximum(a, b);
        case 6: return gradc::atan2(a, b);
        default: return gradc::hypot(a, b);
    }
}

/// y = k·x as a custom function: its backward returns k·g, or (chosen when it is
/// called) throws, or returns a gradient of the wrong shape, which the engine must turn
/// into a gradc::Error.
struct ScaledByK : gradc::autograd::Function<ScaledByK> {
    static gradc::Tensor forward(gradc::autograd::AutogradContext* ctx, gradc::Tensor x, double k, std::int64_t mode) {
        ctx->save_for_backward({x});
        ctx->saved_data["k"] = k;
        ctx->saved_data["mode"] = mode;
        return x * k;
    }
    static gradc::tensor_list backward(gradc::autograd::AutogradContext* ctx, gradc::tensor_list g) {
        const double k = ctx->saved_data["k"].toDouble();
        const gradc::Tensor x = ctx->get_saved_variables()[0];
        switch (ctx->saved_data["mode"].toInt()) {
            case 0: return {g[0] * k, gradc::Tensor(), gradc::Tensor()};
            case 1: throw gradc::Error("fuzz: custom backward refuses");
            default: return {gradc::zeros({3, 3}, gradc::TensorOptions().dtype(gradc::kFloat64)), gradc::Tensor(), gradc::Tensor()};
        }
    }
};

/// One to three operations (unary, or binary with a constant second operand) applied
/// to x: the function whose forward and reverse derivatives are compared.
/// Each operation's result is appended to `steps` when given.
gradc::Tensor chain(const std::vector<std::uint8_t>& ops, const gradc::Tensor& x, const gradc::Tensor& c,
                    std::vector<gradc::Tensor>* steps = nullptr) {
    gradc::Tensor y = x;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        y = ops[i] % 2 ? unary(ops[i] / 2, y) : binary(ops[i] / 2, y, c);
        if (steps) steps->push_back(y);
    }
    return y;
}

/// ⟨u, J·v⟩ (forward mode) against ⟨Jᵀ·u, v⟩ (reverse mode) for the chain at a pool
/// tensor's values. Both are sums of the same products in another order: they must agree
/// to rounding of the largest product, where every product is finite.
void compare_forward_and_reverse(reader& in, const std::vector<gradc::Tensor>& pool) {
    namespace fwd = gradc::autograd::forward_ad;
    const auto values = contents(pick(in, pool));  // NaN read back as a number: fine for a point
    const auto c_values = contents(pick(in, pool));
    std::vector<std::uint8_t> ops(1 + in.byte() % 3);
    for (auto& o : ops) o = in.byte();
    const std::int64_t n = std::int64_t(values.size());
    if (n == 0) return;
    const auto f64 = gradc::TensorOptions().dtype(gradc::kFloat64);
    std::vector<double> v(values.size()), u;
    for (double& e : v) e = in.weight();
    const gradc::Tensor point = gradc::from_vector(values, {n}, f64);
    const gradc::Tensor c = c_values.size() == 1 || c_values.size() == values.size()
                                ? gradc::from_vector(c_values, {std::int64_t(c_values.size())}, f64)
                                : gradc::Tensor(0.5);
    gradc::Tensor jv;
    {
        fwd::dual_level level;
        const gradc::Tensor y = chain(ops, fwd::make_dual(point, gradc::from_vector(v, {n}, f64)), c);
        jv = fwd::unpack_dual(y).tangent;
        for (std::int64_t i = 0; i < y.numel(); ++i) u.push_back(in.weight());
    }
    const gradc::Tensor x = point.clone().requires_grad_(true);
    std::vector<gradc::Tensor> steps;
    const gradc::Tensor y = chain(ops, x, c, &steps);
    if (!y.requires_grad()) return;
    const auto g = gradc::autograd::grad({y}, {x}, {gradc::from_vector(u, y.sizes(), f64)}, false, false, true)[0];
    const auto jv_values = jv.defined() ? contents(jv) : std::vector<double>(u.size(), 0.0);
    const auto g_values = g.defined() ? contents(g) : std::vector<double>(v.size(), 0.0);
    double forward = 0, reverse = 0, scale = 0;
    for (std::size_t i = 0; i < u.size(); ++i) {
        forward += u[i] * jv_values[i];
        scale = std::max(scale, std::abs(u[i] * jv_values[i]));
    }
    for (std::size_t i = 0; i < v.size(); ++i) {
        reverse += g_values[i] * v[i];
        scale = std::max(scale, std::abs(g_values[i] * v[i]));
    }
    // contents() reads NaN as 12345.678, so non-finite results show as large or equal values;
    // compare only where every input of the sums is finite and not that marker.
    const auto finite = [](const std::vector<double>& a) {
        return std::all_of(a.begin(), a.end(), [](double e) { return std::isfinite(e) && e != 12345.678 && std::abs(e) < 1e150; });
    };
    if (!finite(values) || !finite(c_values) || !finite(jv_values) || !finite(g_values) || !finite(u) || !finite(v)) return;
    // Nor where a value of the chain or a result is nonzero and below 1e-150. There a local
    // partial can be subnormal (pow(x, c) three times with x = 6.9375, c = -6.9375: the last
    // partial c·a^(c-1) is -3.05e-321), and the two modes multiply it in different orders:
    // reverse mode forms u·∂ first, a subnormal product rounded to a few digits, forward
    // mode multiplies the huge tangent first. They then differ by 5e-4 relative, the
    // rounding of the subnormal, as PyTorch's engine would in the same orders
    // (docs/benchmark-history.md, "Fuzzing runs").
    const auto not_tiny = [](const std::vector<double>& a) {
        return std::all_of(a.begin(), a.end(), [](double e) { return e == 0 || std::abs(e) >= 1e-150; });
    };
    if (!not_tiny(jv_values) || !not_tiny(g_values)) return;
    for (const auto& step : steps)
        if (!not_tiny(contents(step.detach()))) return;
    if (std::abs(forward - reverse) > 1e-9 * scale * double(u.size() + v.size()) + 1e-300) {
        std::fprintf(stderr, "fuzz_dynamic: forward mode gives <u, Jv> = %.17g, reverse mode <J^T u, v> = %.17g\n", forward,
                     reverse);
        // What a reproduction needs: the chain's operation bytes (odd: unary op/2, even:
        // binary op/2 with c), the point, c, v, u and both modes' results.
        const auto print = [](const char* name, const auto& a) {
            std::fprintf(stderr, "  %s:", name);
            for (const auto e : a) std::fprintf(stderr, " %.17g", double(e));
            std::fputc('\n', stderr);
        };
        print("operation bytes", ops), print("x", values), print("c", c_values), print("v", v), print("u", u);
        print("J·v", jv_values), print("Jᵀ·u", g_values);
        std::abort();
    }
}

/// Every leaf created, kept until the end of the input: `backward(create_graph = true)`
/// stores a gradient whose graph ends in the leaf's own AccumulateGrad, a reference cycle
/// that PyTorch has too and that docs/dynamic.md tells users to break by resetting the
/// gradient; the harness does so for every leaf before the input ends.
std::vector<gradc::Tensor> leaves;

/// One operation; its result (if any) joins the pool.
void step(reader& in, std::vector<gradc::Tensor>& pool) {
    const std::uint8_t op = in.byte();
    const auto push = [&](const gradc::Tensor& t) {
        if (pool.size() < 16) pool.push_back(t);
        else pool[in.byte() % pool.size()] = t;
    };
    // Operations added later have op bytes 252-255, so that the corpus decodes as it did
    // before (an op byte of 252 or more meant op % 14 then).
    if (op >= 252) {
        switch (op) {
            case 252: {  // a custom function; its backward may fail when a pass reaches it
                const gradc::Tensor a = pick(in, pool);
                const double k = in.value();
                const std::int64_t mode = in.byte() % 3;
                push(ScaledByK::apply(a, k, mode));
                break;
            }
            case 253: {  // an operation under saved-tensor hooks: pack clones (or refuses), unpack reads it back
                const gradc::Tensor a = pick(in, pool), b = pick(in, pool);
                const bool refuse = in.byte() % 4 == 0;
                const std::uint8_t which = in.byte();
                gradc::autograd::SavedTensorsHooks hooks(
                    [refuse](const gradc::Tensor& t) -> std::any {
                        if (refuse) throw gradc::Error("fuzz: pack hook refuses");
                        return t.clone();
                    },
                    [](const std::any& packed) { return std::any_cast<gradc::Tensor>(packed); });
                push(which % 2 ? unary(which / 2, a) : binary(which / 2, a, b));
                break;
            }
            default: compare_forward_and_reverse(in, pool); break;
        }
        return;
    }
    switch (op % 14) {
        case 0: {  // a new leaf: 1 to 4 elements, one or two dimensions
            const std::int64_t rows = 1 + in.byte() % 2, cols = 1 + in.byte() % 2;
            std::vector<double> v;
            for (std::int64_t i = 0; i < rows * cols; ++i) v.push_back(in.value());
            leaves.push_back(gradc::from_vector(v, {rows, cols}, gradc::TensorOptions().dtype(gradc::kFloat64).requires_grad(in.byte() % 2)));
            push(leaves.back());
            break;
        }
        case 1: push(unary(in.byte(), pick(in, pool))); break;
        case 2: {
            const gradc::Tensor a = pick(in, pool), b = pick(in, pool);
            push(binary(in.byte(), a, b));
            break;
        }
        case 3: {  // views with parameters that may be out of range
            const gradc::Tensor a = pick(in, pool);
            const std::int64_t p = in.byte() % 4 - 1, q = in.byte() % 3;
            switch (in.byte() % 4) {
                case 0: push(a.narrow(p, q, 1)); break;
                case 1: push(a.transpose(p, q)); break;
                case 2: push(a.expand({2, 2})); break;
                default: push(a.reshape({-1})); break;
            }
            break;
        }
        case 4: {  // in-place: fails on a leaf that requires grad and on saved tensors at backward
            gradc::Tensor a = pick(in, pool);
            // The operand of add_ is detached: `d.add_(log(d))` leaks today (the new grad_fn
            // of d reaches LogBackward, which saved d itself: a reference cycle; found by this
            // fuzzer, not fixed yet, docs/reliability.md). Detached, the operand adds no history.
            if (in.byte() % 2) a.mul_(in.value());
            else a.add_(pick(in, pool).detach());
            break;
        }
        case 5: push(pick(in, pool).sum()); break;
        case 6: {  // backward of the sum, retain_graph or not
            const gradc::Tensor a = pick(in, pool);
            // Read in order (the order of a call's arguments is unspecified: g++ and clang differ).
            const bool retain = in.byte() % 2 == 1, create = in.byte() % 4 == 0;
            a.sum().backward({}, retain, create);
            break;
        }
        case 7: {  // autograd::grad with respect to another tensor, maybe create_graph, then its backward
            const gradc::Tensor y = pick(in, pool).sum(), x = pick(in, pool);
            const bool create = in.byte() % 2;
            const auto g = gradc::autograd::grad({y}, {x}, {}, true, create, true);
            if (g[0].defined()) {
                if (create && g[0].requires_grad()) g[0].sum().backward();  // double backward
                push(g[0]);  // only once nothing more can fail
            }
            break;
        }
        case 8: {  // an operation under no_grad
            gradc::NoGradGuard no_grad;
            push(unary(in.byte(), pick(in, pool)));
            break;
        }
        case 9: {  // a hook that scales the gradient, or one that throws
            const gradc::Tensor a = pick(in, pool);
            if (!a.requires_grad()) break;
            if (in.byte() % 4 == 0)
                a.register_hook([](const gradc::Tensor&) -> gradc::Tensor { throw gradc::Error("fuzz: hook refuses"); });
            else
                a.register_hook([](const gradc::Tensor& g) { return g * 2.0; });
            break;
        }
        case 10: push(pick(in, pool).detach()); break;
        case 11: pool[in.byte() % pool.size()] = gradc::Tensor(in.value()); break;  // drop a tensor
        case 12: {  // zero a gradient
            const gradc::Tensor a = pick(in, pool);
            // Only a leaf's or a retaining tensor's: reading another's .grad() warns.
            if ((a.is_leaf() || a.retains_grad()) && a.grad().defined()) a.mutable_grad() = gradc::Tensor();
            break;
        }
        default: push(pick(in, pool).t()); break;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    reader in(data, size);
    std::vector<gradc::Tensor> pool{gradc::from_vector({0.5, -1.5}, {2}, gradc::TensorOptions().requires_grad(true))};
    leaves.assign(1, pool[0]);
    for (int steps = 0; steps < 64 && !in.done(); ++steps) {
        const snapshot before = take(pool);
        try {
            step(in, pool);
        } catch (const gradc::Error&) {
            // A failing operation changes nothing that exists (its result never joined the pool).
            if (!take(pool).same_as(before)) {
                std::fputs("fuzz_dynamic: a failing operation modified a tensor\n", stderr);
                std::abort();
            }
        }
        // Any other exception escapes and libFuzzer reports it as a crash.
    }
    for (const auto& leaf : leaves) leaf.mutable_grad() = gradc::Tensor();
    leaves.clear();
    return 0;
}

#ifdef GRADC_FUZZ_REPLAY
#include <filesystem>
#include <fstream>
#include <iterator>

/// Replays every file of the directories or files given, each once, in name order.
int main(int argc, char** argv) {
    std::vector<std::filesystem::path> files;
    for (int i = 1; i < argc; ++i) {
        if (std::filesystem::is_directory(argv[i])) {
            for (const auto& e : std::filesystem::directory_iterator(argv[i]))
                if (e.is_regular_file()) files.push_back(e.path());
        } else {
            files.emplace_back(argv[i]);
        }
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        std::ifstream s(f, std::ios::binary);
        const std::vector<char> bytes((std::istreambuf_iterator<char>(s)), std::istreambuf_iterator<char>());
        LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    }
    std::printf("fuzz_dynamic: replayed %zu inputs\n", files.size());
    return files.empty() ? 1 : 0;
}
#endif
