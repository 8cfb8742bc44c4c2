#include <atomic>

#include <gradc/autograd/dtype.hpp>

namespace gradc {

std::string_view to_string(ScalarType t) {
    switch (t) {
        case ScalarType::Bool: return "Bool";
        case ScalarType::Int64: return "Long";
        case ScalarType::Float32: return "Float";
        case ScalarType::Float64: return "Double";
        case ScalarType::ComplexFloat: return "ComplexFloat";
        case ScalarType::ComplexDouble: return "ComplexDouble";
    }
    return "Unknown";
}

namespace {
// Process-wide, as torch.set_default_dtype: threads started by a test or a program see
// the dtype its main thread chose.
std::atomic<ScalarType> default_dtype{kFloat32};
}  // namespace

ScalarType get_default_dtype() {
    return default_dtype.load(std::memory_order_relaxed);
}

void set_default_dtype(ScalarType t) {
    if (!is_floating_point(t))
        throw Error("gradc: set_default_dtype: only floating-point types are supported as the default type, got " +
                    std::string(to_string(t)));
    default_dtype.store(t, std::memory_order_relaxed);
}

std::size_t element_size(ScalarType t) {
    return dispatch(t, [](auto tag) { return sizeof(typename decltype(tag)::type); });
}

namespace {
// Rank in the promotion lattice, ignoring complexness: bool < int64 < float32 < float64.
int rank(ScalarType t) {
    switch (t) {
        case ScalarType::Bool: return 0;
        case ScalarType::Int64: return 1;
        case ScalarType::Float32:
        case ScalarType::ComplexFloat: return 2;
        case ScalarType::Float64:
        case ScalarType::ComplexDouble: return 3;
    }
    return 0;
}
}  // namespace

ScalarType promote_types(ScalarType a, ScalarType b) {
    if (a == b) return a;
    const bool complex = is_complex(a) || is_complex(b);
    const int r = std::max(rank(a), rank(b));
    if (complex) return r == 3 ? kComplex128 : kComplex64;
    switch (r) {
        case 0: return kBool;
        case 1: return kInt64;
        case 2: return kFloat32;
        default: return kFloat64;
    }
}

ScalarType to_real_type(ScalarType t) {
    if (t == kComplex64) return kFloat32;
    if (t == kComplex128) return kFloat64;
    return t;
}

ScalarType to_complex_type(ScalarType t) {
    if (t == kFloat32) return kComplex64;
    if (t == kFloat64) return kComplex128;
    if (is_complex(t)) return t;
    throw Error("gradc: to_complex_type: no complex type for dtype " + std::string(to_string(t)));
}

}  // namespace gradc
