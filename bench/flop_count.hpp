#pragma once
/// A scalar that counts the floating-point work done on it, for the flop side of the
/// roofline (docs/benchmarks.md, "Every size, and the machine's limits"). Run through
/// the same generic programs the benchmark times (gradc's gradient program, the
/// hand-written formulas), it counts per point:
///  - arithmetic flops: +, −, ×, ÷ and sqrt one each, fma two (what the FMA peak counts);
///    negation, abs, min/max and comparisons none (sign and compare operations);
///  - calls of each transcendental function, by name: their cost is that of the library
///    that evaluates them (xsimd's polynomials in the batch code), counted separately.

#include <cmath>
#include <map>
#include <string>

namespace bench {

struct flop_tally {
    long arithmetic = 0;
    std::map<std::string, long> calls;
};

inline flop_tally& tally() {
    static flop_tally t;
    return t;
}

struct counted {
    using value_type = double;  // gradc's rules write constants as value_type(c)
    double v = 0;

    counted() = default;
    counted(double x) : v(x) {}  // NOLINT: constants mix with counted values as doubles do

    counted& operator+=(const counted& b) { return *this = *this + b; }
    counted& operator-=(const counted& b) { return *this = *this - b; }
    counted& operator*=(const counted& b) { return *this = *this * b; }
    counted& operator/=(const counted& b) { return *this = *this / b; }

    friend counted operator+(const counted& a, const counted& b) { return ++tally().arithmetic, counted(a.v + b.v); }
    friend counted operator-(const counted& a, const counted& b) { return ++tally().arithmetic, counted(a.v - b.v); }
    friend counted operator*(const counted& a, const counted& b) { return ++tally().arithmetic, counted(a.v * b.v); }
    friend counted operator/(const counted& a, const counted& b) { return ++tally().arithmetic, counted(a.v / b.v); }
    friend counted operator-(const counted& a) { return counted(-a.v); }
    friend counted operator+(const counted& a) { return a; }

    friend bool operator<(const counted& a, const counted& b) { return a.v < b.v; }
    friend bool operator>(const counted& a, const counted& b) { return a.v > b.v; }
    friend bool operator<=(const counted& a, const counted& b) { return a.v <= b.v; }
    friend bool operator>=(const counted& a, const counted& b) { return a.v >= b.v; }
    friend bool operator==(const counted& a, const counted& b) { return a.v == b.v; }
    friend bool operator!=(const counted& a, const counted& b) { return a.v != b.v; }
};

inline counted fma(const counted& a, const counted& b, const counted& c) {
    tally().arithmetic += 2;
    return std::fma(a.v, b.v, c.v);
}
inline counted sqrt(const counted& a) { return ++tally().arithmetic, counted(std::sqrt(a.v)); }
inline counted abs(const counted& a) { return std::abs(a.v); }
inline counted fabs(const counted& a) { return std::abs(a.v); }
inline counted max(const counted& a, const counted& b) { return std::max(a.v, b.v); }
inline counted min(const counted& a, const counted& b) { return std::min(a.v, b.v); }
inline counted trunc(const counted& a) { return std::trunc(a.v); }
inline bool isnan(const counted& a) { return std::isnan(a.v); }
inline bool isinf(const counted& a) { return std::isinf(a.v); }
inline bool isfinite(const counted& a) { return std::isfinite(a.v); }

/// One call of a transcendental function, counted under its name.
#define GRADC_BENCH_COUNTED_CALL(f)                   \
    inline counted f(const counted& a) {              \
        ++tally().calls[#f];                          \
        return std::f(a.v);                           \
    }
GRADC_BENCH_COUNTED_CALL(sin)
GRADC_BENCH_COUNTED_CALL(cos)
GRADC_BENCH_COUNTED_CALL(tan)
GRADC_BENCH_COUNTED_CALL(exp)
GRADC_BENCH_COUNTED_CALL(exp2)
GRADC_BENCH_COUNTED_CALL(expm1)
GRADC_BENCH_COUNTED_CALL(log)
GRADC_BENCH_COUNTED_CALL(log1p)
GRADC_BENCH_COUNTED_CALL(log2)
GRADC_BENCH_COUNTED_CALL(log10)
GRADC_BENCH_COUNTED_CALL(erf)
GRADC_BENCH_COUNTED_CALL(erfc)
GRADC_BENCH_COUNTED_CALL(tanh)
GRADC_BENCH_COUNTED_CALL(sinh)
GRADC_BENCH_COUNTED_CALL(cosh)
GRADC_BENCH_COUNTED_CALL(cbrt)
#undef GRADC_BENCH_COUNTED_CALL

}  // namespace bench
