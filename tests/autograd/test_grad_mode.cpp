// Grad modes: no-grad, enable/disable guards, inference mode; thread-locality.
#include <thread>

#include "support.hpp"

using namespace testing;
using Catch::Matchers::Contains;

TEST_CASE("NoGradGuard and AutoGradMode stop and restore recording", "[autograd][grad_mode]") {
    auto x = gradc::tensor({1.0}, gradc::requires_grad());
    CHECK(gradc::GradMode::is_enabled());
    {
        gradc::NoGradGuard guard;
        CHECK_FALSE(gradc::GradMode::is_enabled());
        auto y = x * 2.0;
        CHECK_FALSE(y.requires_grad());
        CHECK(y.grad_fn() == nullptr);
        {
            gradc::AutoGradMode enable(true);
            CHECK((x * 2.0).requires_grad());
        }
        CHECK_FALSE(gradc::GradMode::is_enabled());
    }
    CHECK(gradc::GradMode::is_enabled());
    CHECK((x * 2.0).requires_grad());
}

TEST_CASE("grad mode is thread-local", "[autograd][grad_mode]") {
    gradc::NoGradGuard guard;
    bool other_thread_enabled = false;
    bool other_thread_records = false;
    std::thread t([&] {
        other_thread_enabled = gradc::GradMode::is_enabled();
        auto x = gradc::tensor({1.0}, gradc::requires_grad());
        other_thread_records = (x * x).requires_grad();
    });
    t.join();
    CHECK(other_thread_enabled);
    CHECK(other_thread_records);
    CHECK_FALSE(gradc::GradMode::is_enabled());
}

TEST_CASE("inference mode makes inference tensors that autograd refuses later", "[autograd][grad_mode][errors]") {
    auto w = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    gradc::Tensor inf;
    {
        gradc::InferenceMode guard;
        CHECK(gradc::InferenceMode::is_enabled());
        CHECK_FALSE(gradc::GradMode::is_enabled());
        inf = w * 3.0;
        CHECK(inf.is_inference());
        CHECK_FALSE(inf.requires_grad());
        inf.add_(1.0);  // allowed inside
    }
    CHECK_FALSE(gradc::InferenceMode::is_enabled());
    CHECK(gradc::GradMode::is_enabled());
    CHECK_FALSE(w.is_inference());
    CHECK_THAT(values(inf), approx({4, 7}));
    // Reading an inference tensor is fine; saving one for backward is not.
    CHECK_NOTHROW((inf + w).sum().backward());
    CHECK_THAT(error_of([&] { (inf * w).sum(); }),
               Contains("inference tensors cannot be saved for backward") && Contains("clone()"));
    CHECK_THAT(error_of([&] { inf.mul_(2.0); }), Contains("in-place update to inference tensor") && Contains("outside InferenceMode"));
    auto normal = inf.clone();
    CHECK_FALSE(normal.is_inference());
    CHECK_NOTHROW((normal * w).sum().backward());
}

TEST_CASE("inference tensors cannot be made to require grad outside inference mode", "[autograd][grad_mode][errors]") {
    gradc::Tensor t;
    {
        gradc::InferenceMode guard;
        t = gradc::ones({2});
    }
    CHECK(t.is_inference());
    CHECK_THAT(error_of([&] { t.requires_grad_(); }), Contains("inference tensor") && Contains("clone()"));
    {
        gradc::InferenceMode off(false);
        CHECK_FALSE(gradc::InferenceMode::is_enabled());
        CHECK(gradc::GradMode::is_enabled());
    }
}
