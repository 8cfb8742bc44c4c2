#pragma once
// GCC 12.2 with AVX-512 (-march=native) miscompiles some braced lists in the SLP
// vectoriser: after f({{1.0, 2.0}, {3.0, 4.0}}), std::vector<double>{4, 4, 0, 0} holds
// {4, 4, 4, 4}. The test files are full of such lists, so they are built without it.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC optimize("no-tree-slp-vectorize")
#endif
// Shared helpers of the dynamic-mode tests: reference values from PyTorch
// (reference/reference_data.hpp, written by reference/generate.py, and
// reference/libtorch_data.hpp, by reference/generate_libtorch.py) and one checker for
// tensors against lists of numbers.

#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <gradc/autograd.hpp>

#include <approx.hpp>

#include "reference/libtorch_data.hpp"
#include "reference/reference_data.hpp"

namespace testing {

/// Reference values by name (complex values interleaved re, im).
inline const std::vector<double>& expected(const std::string& name) {
    for (const auto* data : {&reference::data(), &libtorch_reference::data()})
        if (auto it = data->find(name); it != data->end()) return it->second;
    throw std::runtime_error("no reference value named " + name);
}

/// A float64 tensor of the given shape from reference values.
inline gradc::Tensor ref_tensor(const std::string& name, const gradc::Shape& shape, gradc::TensorOptions o = {}) {
    return gradc::from_vector(expected(name), shape, o);
}

/// A complex128 tensor from interleaved reference values.
inline gradc::Tensor ref_complex(const std::string& name, const gradc::Shape& shape, bool requires_grad = false) {
    const auto& v = expected(name);
    std::vector<double> re, im;
    for (std::size_t i = 0; i < v.size(); i += 2) {
        re.push_back(v[i]);
        im.push_back(v[i + 1]);
    }
    gradc::Tensor z = gradc::complex(gradc::from_vector(re, shape), gradc::from_vector(im, shape));
    if (requires_grad) z.requires_grad_();
    return z;
}

/// The elements of t in row-major order as doubles (complex interleaved re, im).
inline std::vector<double> values(const gradc::Tensor& t) {
    std::vector<double> out;
    gradc::Tensor c = t.is_complex() ? t.detach().contiguous().to(gradc::kComplex128) : t.detach().contiguous().to(gradc::kFloat64);
    if (c.is_complex()) {
        const auto* p = c.data_ptr<std::complex<double>>();
        for (std::int64_t i = 0; i < c.numel(); ++i) {
            out.push_back(p[i].real());
            out.push_back(p[i].imag());
        }
    } else {
        const double* p = c.data_ptr<double>();
        out.assign(p, p + c.numel());
    }
    return out;
}

/// Matches a list of numbers elementwise with the suite's `gradc::test::close`. It owns the
/// expected values (Catch's Approx matcher keeps a reference, which dangles for a braced
/// list).
class ApproxList : public Catch::MatcherBase<std::vector<double>> {
public:
    ApproxList(std::vector<double> expected, double rel, double abs) : expected_(std::move(expected)), rel_(rel), abs_(abs) {}
    bool match(const std::vector<double>& actual) const override {
        if (actual.size() != expected_.size()) return false;
        for (std::size_t i = 0; i < actual.size(); ++i)
            if (!gradc::test::close(actual[i], expected_[i], rel_, abs_)) return false;
        return true;
    }
    std::string describe() const override { return "is approx: " + Catch::Detail::stringify(expected_); }

private:
    std::vector<double> expected_;
    double rel_, abs_;
};

/// Matches a list of numbers elementwise with a relative tolerance (and a small absolute
/// one for values near zero).
inline ApproxList approx(std::vector<double> expected, double rel = 1e-10, double abs = 1e-12) {
    return ApproxList(std::move(expected), rel, abs);
}
/// For literal lists. Taking the std::initializer_list directly also avoids a GCC 12.2
/// miscompilation at -march=native (AVX-512): `std::vector<double>{4, 4, 0, 0}` built
/// right after a nested braced list came out as {4, 4, 4, 4}.
inline ApproxList approx(std::initializer_list<double> expected, double rel = 1e-10, double abs = 1e-12) {
    return ApproxList(std::vector<double>(expected.begin(), expected.end()), rel, abs);
}

/// The same against a named reference list.
inline auto matches(const std::string& name, double rel = 1e-10, double abs = 1e-12) {
    return approx(expected(name), rel, abs);
}

/// Runs f and returns the message of the gradc::Error it throws ("" if none).
template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const gradc::Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace testing
