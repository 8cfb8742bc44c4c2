#pragma once
/// The one approximate-comparison checker of the test suite, and finite differences.

#include <cmath>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

namespace gradc::test {

/// |actual - expected| <= atol + rtol * |expected|, with NaN equal to NaN and infinities
/// equal when they have the same sign.
inline bool close(double actual, double expected, double rtol = 1e-12, double atol = 1e-12) {
    if (std::isnan(expected)) return std::isnan(actual);
    if (std::isinf(expected)) return actual == expected;
    return std::abs(actual - expected) <= atol + rtol * std::abs(expected);
}

/// A Catch2 matcher form of `close`, so failures print both numbers.
class CloseTo : public Catch::MatcherBase<double> {
public:
    CloseTo(double expected, double rtol, double atol) : expected_(expected), rtol_(rtol), atol_(atol) {}
    bool match(const double& actual) const override { return close(actual, expected_, rtol_, atol_); }
    std::string describe() const override {
        std::ostringstream s;
        s.precision(17);
        s << "is close to " << expected_ << " (rtol " << rtol_ << ", atol " << atol_ << ")";
        return s.str();
    }

private:
    double expected_, rtol_, atol_;
};

inline CloseTo is_close_to(double expected, double rtol = 1e-12, double atol = 1e-12) {
    return CloseTo(expected, rtol, atol);
}

/// Derivative of f at x by central differences with one Richardson extrapolation step
/// (error O(h⁴)), the step scaled to x.
template <class F>
double central_difference(F&& f, double x) {
    const double h = 1e-3 * std::max(1.0, std::abs(x));
    const double d1 = (f(x + h) - f(x - h)) / (2 * h);
    const double d2 = (f(x + h / 2) - f(x - h / 2)) / h;
    return (4 * d2 - d1) / 3;
}

/// `actual` against a C library result `expected` at special values: NaN where it is
/// NaN; bit for bit (sign of zero included) where it is 0, ±inf or ±1; within `rtol`
/// relative elsewhere.
template <class T>
bool matches_c_result(T actual, T expected, T rtol) {
    if (std::isnan(expected)) return std::isnan(actual);
    if (expected == 0 || std::isinf(expected) || std::abs(expected) == 1)
        return actual == expected && std::signbit(actual) == std::signbit(expected);
    return std::abs(actual - expected) <= rtol * std::abs(expected);
}

}  // namespace gradc::test
