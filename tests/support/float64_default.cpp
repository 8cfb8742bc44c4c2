// The dynamic-mode tests were written when gradc's default dtype was float64, and their
// tolerances and reference values assume it: this listener says so, setting float64 as the
// default dtype before each test case. Test cases tagged [libtorch] run under LibTorch's
// default (float32), like the LibTorch code they port. Linked into the test executables
// that use the dynamic mode (tests/meson.build).
#define CATCH_CONFIG_EXTERNAL_INTERFACES
#include <algorithm>

#include <catch2/catch.hpp>

#include <gradc/autograd/dtype.hpp>

namespace {

struct Float64Default : Catch::TestEventListenerBase {
    using TestEventListenerBase::TestEventListenerBase;
    void testCaseStarting(const Catch::TestCaseInfo& info) override {
        const bool libtorch = std::find(info.tags.begin(), info.tags.end(), "libtorch") != info.tags.end();
        gradc::set_default_dtype(libtorch ? gradc::kFloat32 : gradc::kFloat64);
    }
};

}  // namespace

CATCH_REGISTER_LISTENER(Float64Default)
