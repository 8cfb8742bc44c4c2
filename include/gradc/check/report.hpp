#pragma once
/// \file
/// What the checkers of compiled kernels share: their options, the report of
/// disagreements (each naming the program, the point, the variable and the output), and
/// the kernel's values at a point.

#include <array>
#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>

#include <gradc/check/options.hpp>

namespace gradc::check {

using Options = autograd::GradcheckOptions;  ///< The static checker's options: the same as the dynamic mode's.

namespace detail {

/// Collected disagreements; `finish` throws or returns false when there are any.
class Report {
public:
    explicit Report(std::string what) : what_(std::move(what)) {}
    template <std::size_t N>
    void compare(double analytical, double numerical, const Options& o, const std::string& program,
                 std::size_t point, const std::array<double, N>& x, const std::string& where) {
        const bool ok = std::abs(analytical - numerical) <= o.atol + o.rtol * std::abs(numerical) ||
                        (std::isnan(analytical) && std::isnan(numerical));
        if (ok) return;
        ++count_;
        if (count_ > 20) return;
        std::ostringstream s;
        s.precision(10);
        s << "  " << program << " at point " << point << " (";
        for (std::size_t j = 0; j < N; ++j) s << (j ? ", " : "") << 'x' << j << " = " << x[j];
        s << "), " << where << ": got " << analytical << ", expected " << numerical << "\n";
        lines_ += s.str();
    }
    bool finish(const Options& o) const {
        if (count_ == 0) return true;
        std::string msg = what_ + ": " + std::to_string(count_) + " disagreement(s) (|a - n| <= atol + rtol*|n| with atol = " +
                          std::to_string(o.atol) + ", rtol = " + std::to_string(o.rtol) + ")\n" + lines_;
        if (count_ > 20) msg += "  ... (" + std::to_string(count_ - 20) + " more)\n";
        if (o.raise_exception) throw autograd::GradcheckError(msg);
        return false;
    }

private:
    std::string what_;
    std::string lines_;
    std::size_t count_ = 0;
};

template <class K>
std::array<double, K::output_count> values(const K& k, const std::array<double, K::arity>& x) {
    if constexpr (K::output_count == 1) {
        return {k.value(x)};
    } else {
        return k.value(x);
    }
}

inline std::string var(std::size_t index) { return "variable x" + std::to_string(index); }
inline std::string out(std::size_t m) { return "output " + std::to_string(m); }

}  // namespace detail

}  // namespace gradc::check
