#pragma once
// The dynamic mode's bad-input tables (tests/autograd/test_bad_input.cpp, the fused
// kernels', the Eigen conversions'): a row feeds a public entry point the wrong thing and
// requires
//  - a gradc::Error whose message contains the row's fragments (the operation, what it
//    got, what it expected), or, where the user's own code threw, that exception
//    unchanged;
//  - every tensor the call could touch exactly as it was: values, gradient and version
//    counter.
#include <complex>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <gradc/autograd.hpp>

namespace bad_input {

/// What a tensor holds that a failing call must leave alone.
struct TensorState {
    bool defined = false;
    std::vector<double> data;
    std::int64_t version = 0;
    bool has_grad = false;
    std::vector<double> grad;
    bool operator==(const TensorState&) const = default;
};

/// The entries as doubles (a complex entry as its real and imaginary parts).
inline std::vector<double> contents(const gradc::Tensor& t) {
    gradc::NoGradGuard no_grad;
    std::vector<double> out;
    if (t.is_complex()) {
        const gradc::Tensor c = t.detach().contiguous().to(gradc::kComplex128);
        const auto* p = c.data_ptr<std::complex<double>>();
        for (std::int64_t i = 0; i < c.numel(); ++i) {
            out.push_back(p[i].real());
            out.push_back(p[i].imag());
        }
        return out;
    }
    const gradc::Tensor c = t.detach().contiguous().to(gradc::kFloat64);
    return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

inline TensorState state_of(const gradc::Tensor& t) {
    TensorState s;
    if (!t.defined()) return s;
    s.defined = true;
    s.data = contents(t);
    s.version = t._version();
    // Only leaves and retaining non-leaves have a .grad() (reading another's warns).
    if ((t.is_leaf() || t.retains_grad()) && t.grad().defined()) {
        s.has_grad = true;
        s.grad = contents(t.grad());
    }
    return s;
}

inline std::vector<TensorState> states_of(const std::vector<gradc::Tensor>& tensors) {
    std::vector<TensorState> out;
    for (const auto& t : tensors) out.push_back(state_of(t));
    return out;
}

/// A call ready to fail and the tensors it must not change.
struct Scene {
    std::vector<gradc::Tensor> watched;
    std::function<void()> call;
};

/// Who throws: gradc itself (a gradc::Error), or the user's hook or backward, whose
/// exception must reach the caller unchanged (type and message).
enum class Thrower { gradc, user };

struct BadInput {
    std::string name;
    std::function<Scene()> make;
    std::vector<std::string> fragments;
    Thrower thrower = Thrower::gradc;
};

/// The user's own failure, thrown by hooks and custom backwards in the tables.
struct UserFailure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// A leaf that already holds a gradient (2x from a first pass), so that an accumulation
/// by a failing pass would show.
inline gradc::Tensor leaf_with_grad() {
    auto x = gradc::tensor({1.0, 2.0, 3.0}, gradc::requires_grad());
    (x * x).sum().backward();
    return x;
}

/// Runs f; returns the message of what it threw and who threw it (nullopt: nothing).
inline std::optional<std::pair<Thrower, std::string>> failure_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const gradc::Error& e) {
        return std::pair{Thrower::gradc, std::string(e.what())};
    } catch (const UserFailure& e) {
        return std::pair{Thrower::user, std::string(e.what())};
    }
    return std::nullopt;
}

/// Runs every row of the table and checks what it threw and what it left.
inline void check_table(const std::vector<BadInput>& table) {
    for (const auto& row : table) {
        INFO("row: " << row.name);
        Scene scene = row.make();
        const auto before = states_of(scene.watched);
        const auto failure = failure_of(scene.call);
        REQUIRE(failure.has_value());
        CHECK(failure->first == row.thrower);
        INFO("message: " << failure->second);
        for (const auto& fragment : row.fragments) CHECK_THAT(failure->second, Catch::Matchers::Contains(fragment));
        CHECK(states_of(scene.watched) == before);
    }
}

}  // namespace bad_input
