#pragma once
// The report of a checker that is expected to fail: runs `check()` (which must throw
// gradc::autograd::GradcheckError) and returns the message, or fails the test case.
#include <string>

#include <catch2/catch.hpp>

#include <gradc/check/options.hpp>

namespace gradc::test {

template <class Check>
std::string failure_report(Check check) {
    try {
        check();
    } catch (const gradc::autograd::GradcheckError& e) {
        return e.what();
    }
    FAIL("expected a GradcheckError");
    return {};
}

/// The same checker with raise_exception = false returns false.
inline gradc::autograd::GradcheckOptions quietly() {
    gradc::autograd::GradcheckOptions quiet;
    quiet.raise_exception = false;
    return quiet;
}

}  // namespace gradc::test
