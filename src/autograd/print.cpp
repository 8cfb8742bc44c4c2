// Printing in LibTorch's layout: values (fixed with 4 decimals, integers without, or
// scientific when magnitudes differ widely), then `[ CPUDoubleType{2,3} ]`.
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>

#include <gradc/autograd/print.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "internal.hpp"

namespace gradc {

namespace {

struct Format {
    enum Kind { Integer, Fixed, Scientific } kind = Fixed;
    int width = 1;
};

Format choose_format(const std::vector<double>& v) {
    Format f;
    bool integral = true;
    double amax = 0, amin = std::numeric_limits<double>::infinity();
    bool negative = false;
    for (double x : v) {
        if (!std::isfinite(x)) continue;
        integral = integral && x == std::floor(x);
        amax = std::max(amax, std::abs(x));
        if (x != 0) amin = std::min(amin, std::abs(x));
        negative = negative || x < 0;
    }
    // One column of padding in front of every value, one more when some are negative.
    const int sign = negative ? 2 : 1;
    if (integral) {
        f.kind = Format::Integer;
        f.width = static_cast<int>(std::to_string(static_cast<long long>(amax)).size()) + sign;
        for (double x : v)
            if (!std::isfinite(x)) f.width = std::max(f.width, 4);
        return f;
    }
    const int emax = amax > 0 ? static_cast<int>(std::floor(std::log10(amax))) : 0;
    const int emin = std::isfinite(amin) ? static_cast<int>(std::floor(std::log10(amin))) : 0;
    if (emax - emin > 4 || emax >= 8 || emin < -4) {
        f.kind = Format::Scientific;
        f.width = 10 + sign;
    } else {
        f.kind = Format::Fixed;
        f.width = std::max(emax + 1, 1) + 5 + sign;
    }
    return f;
}

void put(std::ostream& os, double x, const Format& f) {
    std::ostringstream s;
    if (f.kind == Format::Integer && std::isfinite(x)) s << static_cast<long long>(x);
    else if (f.kind == Format::Scientific) s << std::scientific << std::setprecision(4) << x;
    else s << std::fixed << std::setprecision(4) << x;
    os << std::setw(f.width) << s.str();
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
    if (!t.defined()) return os << "[ Tensor (undefined) ]";
    Tensor c = detail::contiguous_as(t, t.dtype());
    const bool cplx = t.is_complex();
    std::vector<double> re, im;
    dispatch(t.dtype(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* p = static_cast<const T*>(c.raw_data());
        for (std::int64_t i = 0; i < c.numel(); ++i) {
            if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
                re.push_back(static_cast<double>(p[i].real()));
                im.push_back(static_cast<double>(p[i].imag()));
            } else {
                re.push_back(static_cast<double>(p[i]));
            }
        }
    });
    const Format fr = choose_format(re), fi = cplx ? choose_format(im) : Format{};
    auto element = [&](std::int64_t i) {
        put(os, re[i], fr);
        if (cplx) {
            os << (im[i] < 0 || std::signbit(im[i]) ? "-" : "+");
            put(os, std::abs(im[i]), Format{fi.kind, 0});
            os << "j";
        }
    };
    const Shape& s = t.sizes();
    if (s.empty()) {
        // A 0-dim tensor prints its value with the stream's default formatting.
        os << re[0];
        if (cplx) os << (im[0] < 0 ? "-" : "+") << std::abs(im[0]) << "j";
        os << "\n";
    } else if (s.size() == 1) {
        for (std::int64_t i = 0; i < s[0]; ++i) { element(i); os << "\n"; }
    } else {
        const std::int64_t rows = s[s.size() - 2], cols = s.back();
        const std::int64_t blocks = rows * cols == 0 ? 0 : t.numel() / (rows * cols);
        for (std::int64_t b = 0; b < blocks; ++b) {
            if (s.size() > 2) {
                os << "(";
                std::int64_t rem = b;
                Shape idx(s.size() - 2);
                for (std::size_t d = idx.size(); d-- > 0;) { idx[d] = rem % s[d]; rem /= s[d]; }
                for (auto i : idx) os << i + 1 << ",";
                os << ".,.) = \n";
            }
            for (std::int64_t r = 0; r < rows; ++r) {
                for (std::int64_t col = 0; col < cols; ++col) {
                    if (col) os << " ";
                    element((b * rows + r) * cols + col);
                }
                os << "\n";
            }
            if (s.size() > 2 && b + 1 < blocks) os << "\n";
        }
    }
    os << "[ CPU" << to_string(t.dtype()) << "Type{";
    for (std::size_t i = 0; i < s.size(); ++i) os << (i ? "," : "") << s[i];
    return os << "} ]";
}

std::ostream& operator<<(std::ostream& os, const Shape& sizes) { return os << shape_string(sizes); }

std::ostream& operator<<(std::ostream& os, ScalarType t) {
    // The names LibTorch prints for t.dtype() (a caffe2::TypeMeta).
    switch (t) {
        case ScalarType::Bool: return os << "bool";
        case ScalarType::Int64: return os << "long int";
        case ScalarType::Float32: return os << "float";
        case ScalarType::Float64: return os << "double";
        case ScalarType::ComplexFloat: return os << "c10::complex<float>";
        case ScalarType::ComplexDouble: return os << "c10::complex<double>";
    }
    return os << to_string(t);
}

std::string to_string(const Tensor& t) {
    std::ostringstream os;
    os << t;
    return os.str();
}

}  // namespace gradc
