// gradcheck and gradgradcheck for the dynamic mode (seeds 000 / 002, "gradcheck mechanics").
//
// Reverse mode (vᵀJ, row by row) and forward mode (J·u, column by column, with dual
// tensors) are each compared with the same numerical Jacobian.
//
// Everything is computed on copies of the values as std::complex<double> vectors, so one
// code path serves float32/float64/complex64/complex128. The Jacobian of output o (part p:
// real, or imaginary for complex outputs) with respect to input i is an M×N matrix with
// one row per output element and one column per input element; its entries are complex
// (2·CW) for complex inputs and real otherwise.

#include <gradc/check/gradcheck.hpp>

#include <cmath>
#include <complex>
#include <cstdint>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/engine.hpp>
#include <gradc/autograd/forward_ad.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/tensor_impl.hpp>

namespace gradc::autograd {
namespace {

using cd = std::complex<double>;
using cvec = std::vector<cd>;

// ---- values ---------------------------------------------------------------------------

cvec read(const Tensor& t) {
    NoGradGuard guard;
    const Tensor c = t.detach().contiguous();
    const auto n = static_cast<std::size_t>(c.numel());
    cvec out(n);
    dispatch(c.dtype(), [&]<class T>(type_tag<T>) {
        const T* p = c.data_ptr<T>();
        for (std::size_t k = 0; k < n; ++k) {
            if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
                out[k] = cd(p[k].real(), p[k].imag());
            } else {
                out[k] = cd(static_cast<double>(p[k]), 0.0);
            }
        }
    });
    return out;
}

Tensor write(const cvec& v, const Shape& sizes, ScalarType dtype) {
    Tensor t = empty(sizes, dtype);
    dispatch_floating(dtype, "gradcheck", [&]<class T>(type_tag<T>) {
        T* p = t.data_ptr<T>();
        for (std::size_t k = 0; k < v.size(); ++k) {
            if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
                p[k] = T(v[k]);
            } else {
                p[k] = static_cast<T>(v[k].real());
            }
        }
    });
    return t;
}

/// Normal numbers from a 64-bit Mersenne twister by Box–Muller: the same on every platform.
class Rng {
public:
    explicit Rng(std::uint64_t seed) : g_(seed) {}
    double uniform() { return static_cast<double>(g_() >> 11) * 0x1.0p-53; }
    double normal() {
        const double u1 = 1.0 - uniform();
        const double u2 = uniform();
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    }
    std::vector<double> normals(std::size_t n) {
        std::vector<double> v(n);
        for (auto& x : v) x = normal();
        return v;
    }
    std::vector<double> unit(std::size_t n) {
        std::vector<double> v = normals(n);
        double s = 0;
        for (double x : v) s += x * x;
        s = std::sqrt(s);
        if (s > 0)
            for (auto& x : v) x /= s;
        return v;
    }

private:
    std::mt19937_64 g_;
};

bool close(cd a, cd n, const GradcheckOptions& o) {
    return std::abs(a - n) <= o.atol + o.rtol * std::abs(n);
}

std::string fmt(cd v, bool complex) {
    std::ostringstream s;
    s.precision(10);
    if (complex)
        s << v.real() << (v.imag() < 0 ? " - " : " + ") << std::abs(v.imag()) << "i";
    else
        s << v.real();
    return s.str();
}

// ---- the problem --------------------------------------------------------------------

struct Problem {
    const GradcheckFunction& fn;
    const GradcheckOptions& opt;
    tensor_list base;                 // detached values of all inputs
    std::vector<std::size_t> diff;    // positions of the inputs that require grad
    std::vector<std::size_t> outs;    // positions of the differentiable outputs
    std::vector<Shape> out_shapes;
    std::vector<ScalarType> out_dtypes;
    std::vector<cvec> out_values;     // f(base)

    bool input_complex(std::size_t i) const { return base[diff[i]].is_complex(); }
    std::size_t input_numel(std::size_t i) const { return static_cast<std::size_t>(base[diff[i]].numel()); }
    bool output_complex(std::size_t o) const { return is_complex(out_dtypes[o]); }
    std::size_t output_numel(std::size_t o) const { return out_values[o].size(); }
    std::size_t parts(std::size_t o) const { return output_complex(o) ? 2 : 1; }

    /// f at the base point with input `i` (of diff) replaced by `value`; the differentiable outputs.
    std::vector<cvec> eval(std::size_t i, const cvec* value) const {
        tensor_list args = base;
        if (value) args[diff[i]] = write(*value, base[diff[i]].sizes(), base[diff[i]].dtype());
        tensor_list r;
        {
            NoGradGuard guard;
            r = fn(args);
        }
        std::vector<cvec> v;
        for (std::size_t p : outs) v.push_back(read(r.at(p)));
        return v;
    }

    /// Leaves that require grad for the inputs that require grad; the other inputs as given.
    tensor_list leaves() const {
        tensor_list l = base;
        for (std::size_t p : diff) l[p] = base[p].clone().detach().requires_grad_(true);
        return l;
    }
};

double part_of(cd v, std::size_t part) { return part == 0 ? v.real() : v.imag(); }

/// (f(x + eps·d) - f(x - eps·d)) / 2eps for the perturbation d (real or imaginary
/// direction) of input i, per output.
std::vector<cvec> directional(const Problem& pb, std::size_t i, const cvec& d) {
    const cvec x = read(pb.base[pb.diff[i]]);
    cvec plus = x, minus = x;
    for (std::size_t k = 0; k < x.size(); ++k) {
        plus[k] += pb.opt.eps * d[k];
        minus[k] -= pb.opt.eps * d[k];
    }
    auto fp = pb.eval(i, &plus);
    const auto fm = pb.eval(i, &minus);
    for (std::size_t o = 0; o < fp.size(); ++o)
        for (std::size_t r = 0; r < fp[o].size(); ++r) fp[o][r] = (fp[o][r] - fm[o][r]) / (2 * pb.opt.eps);
    return fp;
}

// jac[o][part][i] = M×N matrix, row-major.
using Jacobians = std::vector<std::vector<std::vector<cvec>>>;

Jacobians empty_jacobians(const Problem& pb) {
    Jacobians j(pb.outs.size());
    for (std::size_t o = 0; o < pb.outs.size(); ++o) {
        j[o].resize(pb.parts(o));
        for (auto& per_input : j[o]) {
            per_input.resize(pb.diff.size());
            for (std::size_t i = 0; i < pb.diff.size(); ++i)
                per_input[i].assign(pb.output_numel(o) * pb.input_numel(i), cd{});
        }
    }
    return j;
}

/// One Jacobian entry from the change of an output along the real direction (ta) and,
/// for complex inputs, along the imaginary one (tb): 2·CW = ∂y/∂a + i·∂y/∂b, the real part
/// alone for real inputs.
cd column_entry(const Problem& pb, std::size_t i, std::size_t p, cd ta, cd tb) {
    return cd(part_of(ta, p), pb.input_complex(i) ? part_of(tb, p) : 0.0);
}

/// The Jacobians column by column: `along(pb, i, d)` gives the outputs' change along the
/// direction d of input i (central differences, or a forward-mode JVP); each input
/// element is moved along 1 and, for complex inputs, along i.
template <class Along>
Jacobians by_columns(const Problem& pb, Along along) {
    Jacobians j = empty_jacobians(pb);
    for (std::size_t i = 0; i < pb.diff.size(); ++i) {
        const std::size_t n = pb.input_numel(i);
        for (std::size_t k = 0; k < n; ++k) {
            cvec d(n, cd{});
            d[k] = 1.0;
            const std::vector<cvec> ta = along(pb, i, d);
            std::vector<cvec> tb;
            if (pb.input_complex(i)) {
                d[k] = cd(0, 1);
                tb = along(pb, i, d);
            }
            for (std::size_t o = 0; o < pb.outs.size(); ++o)
                for (std::size_t p = 0; p < pb.parts(o); ++p)
                    for (std::size_t r = 0; r < pb.output_numel(o); ++r)
                        j[o][p][i][r * n + k] = column_entry(pb, i, p, ta[o][r], tb.empty() ? cd{} : tb[o][r]);
        }
    }
    return j;
}

Jacobians numerical(const Problem& pb) {
    return by_columns(pb, [](const Problem& q, std::size_t i, const cvec& d) { return directional(q, i, d); });
}

[[noreturn]] void fail(const std::string& message) { throw GradcheckError(message); }

std::string part_prefix(const Problem& pb, std::size_t o, std::size_t p) {
    if (!pb.output_complex(o)) return "";
    return p == 0 ? "While considering the real part of complex outputs only, "
                  : "While considering the imaginary part of complex outputs only, ";
}

/// Σ over the output of grad_out·∂/∂inputs, for output o with the given grad_out values
/// (real part weights, or i·weights for the imaginary part). One row of the Jacobian per call
/// when grad_out is one-hot.
std::vector<cvec> vjp(const Problem& pb, const tensor_list& leaves, const tensor_list& results, std::size_t o,
                      const cvec& grad_out) {
    std::vector<cvec> g(pb.diff.size());
    const Tensor& out = results.at(pb.outs[o]);
    for (std::size_t i = 0; i < pb.diff.size(); ++i) g[i].assign(pb.input_numel(i), cd{});
    if (!out.requires_grad()) return g;
    tensor_list xs;
    for (std::size_t p : pb.diff) xs.push_back(leaves[p]);
    const tensor_list grads =
        grad({out}, xs, {write(grad_out, pb.out_shapes[o], pb.out_dtypes[o])}, true, false, true);
    for (std::size_t i = 0; i < pb.diff.size(); ++i) {
        if (!grads[i].defined()) continue;
        if (pb.opt.check_grad_dtypes && grads[i].dtype() != pb.base[pb.diff[i]].dtype())
            fail("gradcheck: the gradient for input " + std::to_string(pb.diff[i]) + " has dtype " +
                 std::string(to_string(grads[i].dtype())) + " but the input has dtype " +
                 std::string(to_string(pb.base[pb.diff[i]].dtype())) +
                 "; backward must return gradients of the input's dtype (check_grad_dtypes=true).");
        if (grads[i].sizes() != pb.base[pb.diff[i]].sizes())
            fail("gradcheck: the gradient for input " + std::to_string(pb.diff[i]) +
                 " does not have the input's shape; backward must return one gradient per input element.");
        g[i] = read(grads[i]);
        if (!pb.input_complex(i))
            for (auto& e : g[i]) e = cd(e.real(), 0.0);
    }
    return g;
}

Jacobians analytical(const Problem& pb, const tensor_list& leaves, const tensor_list& results) {
    Jacobians j = empty_jacobians(pb);
    for (std::size_t o = 0; o < pb.outs.size(); ++o)
        for (std::size_t p = 0; p < pb.parts(o); ++p)
            for (std::size_t r = 0; r < pb.output_numel(o); ++r) {
                cvec v(pb.output_numel(o), cd{});
                v[r] = p == 0 ? cd(1, 0) : cd(0, 1);
                const auto g = vjp(pb, leaves, results, o, v);
                for (std::size_t i = 0; i < pb.diff.size(); ++i) {
                    const std::size_t n = pb.input_numel(i);
                    for (std::size_t k = 0; k < n; ++k) j[o][p][i][r * n + k] = g[i][k];
                }
            }
    return j;
}

std::string matrix(const Problem& pb, std::size_t o, std::size_t i, const cvec& m) {
    const bool complex = pb.input_complex(i);
    const Shape sizes{static_cast<std::int64_t>(pb.output_numel(o)), static_cast<std::int64_t>(pb.input_numel(i))};
    return to_string(write(m, sizes, complex ? kComplex128 : kFloat64));
}

/// The first (o, p, i) whose matrices differ: its report, or "" when all agree. `forward`:
/// the analytical Jacobian came from forward mode.
std::string compare(const Problem& pb, const Jacobians& ana, const Jacobians& num, bool forward = false) {
    for (std::size_t o = 0; o < pb.outs.size(); ++o)
        for (std::size_t p = 0; p < pb.parts(o); ++p)
            for (std::size_t i = 0; i < pb.diff.size(); ++i) {
                const cvec& a = ana[o][p][i];
                const cvec& n = num[o][p][i];
                for (std::size_t e = 0; e < a.size(); ++e) {
                    if (close(a[e], n[e], pb.opt)) continue;
                    const std::size_t cols = pb.input_numel(i);
                    std::ostringstream s;
                    s << part_prefix(pb, o, p) << (forward ? "Jacobian computed with forward mode mismatch for output "
                                                           : "Jacobian mismatch for output ")
                      << pb.outs[o]
                      << " with respect to input " << pb.diff[i] << ",\n"
                      << "first at output element " << e / cols << ", input element " << e % cols
                      << ": analytical " << fmt(a[e], pb.input_complex(i)) << ", numerical "
                      << fmt(n[e], pb.input_complex(i)) << " (|a - n| <= atol + rtol*|n| with atol=" << pb.opt.atol
                      << ", rtol=" << pb.opt.rtol << ")\n"
                      << "numerical:\n" << matrix(pb, o, i, n) << (forward ? "\nanalytical (forward mode):\n" : "\nanalytical:\n")
                      << matrix(pb, o, i, a) << "\n";
                    return s.str();
                }
            }
    return "";
}

void check_reentrant(const Problem& pb, const Jacobians& first, const Jacobians& second) {
    for (std::size_t o = 0; o < first.size(); ++o)
        for (std::size_t p = 0; p < first[o].size(); ++p)
            for (std::size_t i = 0; i < first[o][p].size(); ++i)
                for (std::size_t e = 0; e < first[o][p][i].size(); ++e)
                    if (std::abs(first[o][p][i][e] - second[o][p][i][e]) > pb.opt.nondet_tol)
                        fail("gradcheck: backward is nondeterministic (not reentrant): running it twice with the same "
                             "inputs and output gradients gave different gradients for output " +
                             std::to_string(pb.outs[o]) + " with respect to input " + std::to_string(pb.diff[i]) +
                             " (difference " + fmt(std::abs(first[o][p][i][e] - second[o][p][i][e]), false) +
                             " > nondet_tol = " + fmt(pb.opt.nondet_tol, false) +
                             "). Raise nondet_tol if the nondeterminism is expected.");
}

void check_deterministic(const Problem& pb) {
    const auto again = pb.eval(0, nullptr);
    for (std::size_t o = 0; o < again.size(); ++o)
        for (std::size_t r = 0; r < again[o].size(); ++r)
            if (std::abs(again[o][r] - pb.out_values[o][r]) > pb.opt.nondet_tol)
                fail("gradcheck: the function is nondeterministic: evaluating it twice at the same inputs gave "
                     "output " + std::to_string(pb.outs[o]) + " values that differ by " +
                     fmt(std::abs(again[o][r] - pb.out_values[o][r]), false) + " at element " + std::to_string(r) +
                     " (nondet_tol = " + fmt(pb.opt.nondet_tol, false) +
                     "); finite differences need a deterministic function. Raise nondet_tol if this is expected.");
}

void slow_mode(const Problem& pb) {
    const tensor_list leaves = pb.leaves();
    const tensor_list results = pb.fn(leaves);
    const Jacobians ana = analytical(pb, leaves, results);
    const Jacobians num = numerical(pb);
    const std::string report = compare(pb, ana, num);
    if (!report.empty()) fail("gradcheck: " + report);
    check_reentrant(pb, ana, analytical(pb, leaves, results));
}

/// Unit directions ur (and ui for complex inputs) per input, drawn first from the seeded
/// generator by both fast modes, so their directions agree for one seed.
void unit_directions(Rng& rng, const Problem& pb, std::vector<std::vector<double>>& ur,
                     std::vector<std::vector<double>>& ui) {
    ur.assign(pb.diff.size(), {});
    ui.assign(pb.diff.size(), {});
    for (std::size_t i = 0; i < pb.diff.size(); ++i) {
        ur[i] = rng.unit(pb.input_numel(i));
        if (pb.input_complex(i)) ui[i] = rng.unit(pb.input_numel(i));
    }
}

void fast_mode(const Problem& pb) {
    Rng rng(pb.opt.seed);
    // u: one unit vector per input (ur, and ui for complex inputs); v: one per output part.
    std::vector<std::vector<double>> ur, ui;
    unit_directions(rng, pb, ur, ui);
    std::vector<std::vector<std::vector<double>>> v(pb.outs.size());
    for (std::size_t o = 0; o < pb.outs.size(); ++o)
        for (std::size_t p = 0; p < pb.parts(o); ++p) v[o].push_back(rng.normals(pb.output_numel(o)));

    // Numerical: Ju along ur (and along i·ui), one pair of evaluations each.
    std::vector<std::vector<cvec>> ju_a(pb.diff.size()), ju_b(pb.diff.size());
    for (std::size_t i = 0; i < pb.diff.size(); ++i) {
        cvec d(ur[i].begin(), ur[i].end());
        ju_a[i] = directional(pb, i, d);
        if (pb.input_complex(i)) {
            for (std::size_t k = 0; k < d.size(); ++k) d[k] = cd(0, ui[i][k]);
            ju_b[i] = directional(pb, i, d);
        }
    }
    const tensor_list leaves = pb.leaves();
    const tensor_list results = pb.fn(leaves);
    for (std::size_t o = 0; o < pb.outs.size(); ++o)
        for (std::size_t p = 0; p < pb.parts(o); ++p) {
            cvec w(pb.output_numel(o));
            for (std::size_t r = 0; r < w.size(); ++r) w[r] = p == 0 ? cd(v[o][p][r], 0) : cd(0, v[o][p][r]);
            const auto g = vjp(pb, leaves, results, o, w);
            for (std::size_t i = 0; i < pb.diff.size(); ++i) {
                // s = real(vᵀ2CW)·ur + i·imag(vᵀ2CW)·ui, numerically vᵀ(∂y/∂a ur) + i·vᵀ(∂y/∂b ui).
                cd a{}, n{};
                for (std::size_t k = 0; k < g[i].size(); ++k) {
                    a += cd(g[i][k].real() * ur[i][k], ui[i].empty() ? 0.0 : g[i][k].imag() * ui[i][k]);
                }
                for (std::size_t r = 0; r < w.size(); ++r) {
                    n += cd(v[o][p][r] * part_of(ju_a[i][o][r], p),
                            ju_b[i].empty() ? 0.0 : v[o][p][r] * part_of(ju_b[i][o][r], p));
                }
                if (close(a, n, pb.opt)) continue;
                // Mismatch: rerun slow mode so the report names the entry and prints both matrices.
                const tensor_list l2 = pb.leaves();
                const tensor_list r2 = pb.fn(l2);
                const std::string report = compare(pb, analytical(pb, l2, r2), numerical(pb));
                std::ostringstream s;
                s << "gradcheck (fast mode): " << part_prefix(pb, o, p) << "mismatch of vᵀJu for output " << pb.outs[o]
                  << " with respect to input " << pb.diff[i] << " (seed " << pb.opt.seed << "): analytical "
                  << fmt(a, pb.input_complex(i)) << ", numerical " << fmt(n, pb.input_complex(i)) << ".\n";
                if (!report.empty())
                    s << "Slow mode, rerun to locate it:\n" << report;
                else
                    s << "Slow mode, rerun to locate it, finds every entry within tolerance: the difference is "
                         "below the tolerance per entry but adds up in vᵀJu; consider raising atol/rtol.\n";
                fail(s.str());
            }
        }
}

// ---- forward mode --------------------------------------------------------------------
// The notes' forward-mode convention: for a real direction u the tangent is (2·CW)·u, the
// ordinary derivative along u. A complex input z = a + ib is checked along real and along
// imaginary directions (PyTorch splits it into the real functions of a and of b): the
// tangents ∂y/∂a·u and ∂y/∂b·u fill the same entries ∂y/∂a + i·∂y/∂b as the numerical
// Jacobian.

namespace fwd = forward_ad;

/// The tangents of the differentiable outputs (zeros where there is none) when input i
/// (of diff) has the tangent `d`, every other differentiable input a zero tangent or, with
/// `plain` set, input `plain` no tangent at all; `others` gives the other inputs'
/// tangents when not empty.
std::vector<cvec> jvp(const Problem& pb, std::size_t i, const cvec& d, const std::vector<cvec>& others = {},
                      std::size_t plain = static_cast<std::size_t>(-1)) {
    fwd::dual_level level;
    tensor_list args = pb.base;
    for (std::size_t m = 0; m < pb.diff.size(); ++m) {
        const Tensor& x = pb.base[pb.diff[m]];
        if (m == plain) continue;
        const cvec* values = m == i ? &d : (others.empty() ? nullptr : &others[m]);
        args[pb.diff[m]] = fwd::make_dual(x, values ? write(*values, x.sizes(), x.dtype()) : zeros_like(x));
    }
    tensor_list r;
    {
        NoGradGuard guard;  // forward mode does not need the backward graph
        r = pb.fn(args);
    }
    std::vector<cvec> out;
    for (std::size_t o = 0; o < pb.outs.size(); ++o) {
        const Tensor tangent = fwd::unpack_dual(r.at(pb.outs[o])).tangent;
        if (tangent.defined() && tangent.sizes() != pb.out_shapes[o])
            fail("gradcheck: forward mode gave output " + std::to_string(pb.outs[o]) + " a tangent of shape " +
                 shape_string(tangent.sizes()) + ", but the output has shape " + shape_string(pb.out_shapes[o]));
        if (pb.opt.check_grad_dtypes && tangent.defined() && tangent.is_complex() != is_complex(pb.out_dtypes[o]))
            fail("gradcheck: forward mode gave output " + std::to_string(pb.outs[o]) + " a tangent of dtype " +
                 std::string(to_string(tangent.dtype())) + " for an output of dtype " +
                 std::string(to_string(pb.out_dtypes[o])) + " (check_grad_dtypes=true).");
        out.push_back(tangent.defined() ? read(tangent) : cvec(pb.output_numel(o), cd{}));
    }
    return out;
}


/// The Jacobians column by column: one JVP per input element (two for complex inputs).
Jacobians forward_analytical(const Problem& pb) {
    return by_columns(pb, [](const Problem& q, std::size_t i, const cvec& d) { return jvp(q, i, d); });
}

void slow_forward_mode(const Problem& pb) {
    const std::string report = compare(pb, forward_analytical(pb), numerical(pb), true);
    if (!report.empty()) fail("gradcheck: " + report);
}


/// J·u from one JVP per input (two for complex inputs), against the central difference
/// along u, element by element.
void fast_forward_mode(const Problem& pb) {
    Rng rng(pb.opt.seed);
    std::vector<std::vector<double>> ur, ui;
    unit_directions(rng, pb, ur, ui);
    for (std::size_t i = 0; i < pb.diff.size(); ++i) {
        cvec da(ur[i].begin(), ur[i].end()), db;
        const auto num_a = directional(pb, i, da);
        const auto ana_a = jvp(pb, i, da);
        std::vector<cvec> num_b, ana_b;
        if (pb.input_complex(i)) {
            for (double x : ui[i]) db.push_back(cd(0, x));
            num_b = directional(pb, i, db);
            ana_b = jvp(pb, i, db);
        }
        for (std::size_t o = 0; o < pb.outs.size(); ++o)
            for (std::size_t p = 0; p < pb.parts(o); ++p)
                for (std::size_t r = 0; r < pb.output_numel(o); ++r) {
                    const cd a = column_entry(pb, i, p, ana_a[o][r], ana_b.empty() ? cd{} : ana_b[o][r]);
                    const cd n = column_entry(pb, i, p, num_a[o][r], num_b.empty() ? cd{} : num_b[o][r]);
                    if (close(a, n, pb.opt)) continue;
                    const std::string report = compare(pb, forward_analytical(pb), numerical(pb), true);
                    std::ostringstream s;
                    s << "gradcheck (fast mode, forward AD): " << part_prefix(pb, o, p) << "mismatch of J·u for output "
                      << pb.outs[o] << " with respect to input " << pb.diff[i] << " at output element " << r << " (seed "
                      << pb.opt.seed << "): forward mode " << fmt(a, pb.input_complex(i)) << ", numerical "
                      << fmt(n, pb.input_complex(i)) << ".\n";
                    if (!report.empty())
                        s << "Slow mode, rerun to locate it:\n" << report;
                    else
                        s << "Slow mode, rerun to locate it, finds every entry within tolerance: the difference is "
                             "below the tolerance per entry but adds up in J·u; consider raising atol/rtol.\n";
                    fail(s.str());
                }
    }
}

/// A JVP must treat an input without tangent like one with a zero tangent.
void check_undefined_forward(const Problem& pb) {
    Rng rng(pb.opt.seed);
    std::vector<std::vector<double>> ur, ui;
    unit_directions(rng, pb, ur, ui);
    std::vector<cvec> u(pb.diff.size());
    for (std::size_t m = 0; m < pb.diff.size(); ++m)
        for (std::size_t k = 0; k < ur[m].size(); ++k) u[m].push_back(cd(ur[m][k], ui[m].empty() ? 0.0 : ui[m][k]));
    for (std::size_t i = 0; i < pb.diff.size(); ++i) {
        const cvec zero(pb.input_numel(i), cd{});
        const auto with_zero = jvp(pb, i, zero, u);
        const auto without = jvp(pb, i, zero, u, i);
        for (std::size_t o = 0; o < pb.outs.size(); ++o)
            for (std::size_t r = 0; r < pb.output_numel(o); ++r)
                if (!close(with_zero[o][r], without[o][r], pb.opt))
                    fail("gradcheck: forward mode does not handle undefined (zero) input tangents: output " +
                         std::to_string(pb.outs[o]) + " gets the tangent " + fmt(with_zero[o][r], true) +
                         " at element " + std::to_string(r) + " when input " + std::to_string(pb.diff[i]) +
                         " has a zero tangent, but " + fmt(without[o][r], true) +
                         " when it has none; a JVP must treat a missing tangent as zeros. check_undefined_grad=false "
                         "skips this check.");
    }
}

void check_undefined_grad(const Problem& pb) {
    const tensor_list leaves = pb.leaves();
    const tensor_list results = pb.fn(leaves);
    for (std::size_t o = 0; o < pb.outs.size(); ++o) {
        const auto g = vjp(pb, leaves, results, o, cvec(pb.output_numel(o), cd{}));
        for (std::size_t i = 0; i < g.size(); ++i)
            for (const cd& e : g[i])
                if (e != cd{})
                    fail("gradcheck: backward does not handle undefined (zero) output gradients: with a zero "
                         "gradient for output " + std::to_string(pb.outs[o]) + " the gradient for input " +
                         std::to_string(pb.diff[i]) + " is not zero (found " + fmt(e, true) +
                         "); backward must treat a missing output gradient as zeros. "
                         "check_undefined_grad=false skips this check.");
    }
}

Problem make_problem(const GradcheckFunction& fn, const tensor_list& inputs, const GradcheckOptions& opt) {
    Problem pb{fn, opt, {}, {}, {}, {}, {}, {}};
    for (std::size_t p = 0; p < inputs.size(); ++p) {
        const Tensor& t = inputs[p];
        pb.base.push_back(t.defined() ? t.detach() : t);
        if (!t.defined() || !t.requires_grad()) continue;
        if (!is_differentiable_type(t.dtype()))
            fail("gradcheck: input " + std::to_string(p) + " requires grad but has dtype " +
                 std::string(to_string(t.dtype())) + "; only floating point and complex inputs can be checked.");
        if (t.dtype() == kFloat32 || t.dtype() == kComplex64)
            std::cerr << "gradc gradcheck warning: input " << p << " has dtype " << to_string(t.dtype())
                      << ": single precision is too low for reliable finite differences (eps = " << opt.eps
                      << "); use float64 / complex128 inputs.\n";
        pb.diff.push_back(p);
    }
    if (pb.diff.empty())
        fail("gradcheck: expects at least one input tensor to require gradient, but none of the " +
             std::to_string(inputs.size()) + " inputs does; call requires_grad_() on the inputs to check.");
    tensor_list r;
    {
        NoGradGuard guard;
        r = fn(pb.base);
    }
    for (std::size_t p = 0; p < r.size(); ++p) {
        if (!r[p].defined() || !is_differentiable_type(r[p].dtype())) continue;
        pb.outs.push_back(p);
        pb.out_shapes.push_back(r[p].sizes());
        pb.out_dtypes.push_back(r[p].dtype());
        pb.out_values.push_back(read(r[p]));
    }
    return pb;
}

bool run_checked(const GradcheckOptions& opt, const auto& body) {
    if (!opt.check_backward_ad && !opt.check_forward_ad)
        throw GradcheckError("gradcheck: expected at least one of check_forward_ad or check_backward_ad to be true.");
    try {
        body();
    } catch (const GradcheckError&) {
        if (opt.raise_exception) throw;
        return false;
    }
    return true;
}

}  // namespace

bool gradcheck(const GradcheckFunction& fn, const tensor_list& inputs, const GradcheckOptions& options) {
    return run_checked(options, [&] {
        const Problem pb = make_problem(fn, inputs, options);
        check_deterministic(pb);
        if (options.check_backward_ad) {
            if (options.fast_mode)
                fast_mode(pb);
            else
                slow_mode(pb);
            if (options.check_undefined_grad) check_undefined_grad(pb);
        }
        if (options.check_forward_ad) {
            if (options.fast_mode)
                fast_forward_mode(pb);
            else
                slow_forward_mode(pb);
            if (options.check_undefined_grad) check_undefined_forward(pb);
        }
    });
}

bool gradgradcheck(const GradcheckFunction& fn, const tensor_list& inputs, const tensor_list& grad_outputs,
                   const GradcheckOptions& options) {
    std::vector<std::size_t> diff;
    for (std::size_t p = 0; p < inputs.size(); ++p)
        if (inputs[p].defined() && inputs[p].requires_grad()) diff.push_back(p);
    tensor_list outs;
    {
        NoGradGuard guard;
        outs = fn(inputs);
    }
    std::vector<std::size_t> diff_outs;
    for (std::size_t p = 0; p < outs.size(); ++p)
        if (outs[p].defined() && is_differentiable_type(outs[p].dtype())) diff_outs.push_back(p);
    tensor_list v;
    if (!grad_outputs.empty()) {
        if (grad_outputs.size() != diff_outs.size())
            throw GradcheckError("gradgradcheck: got " + std::to_string(grad_outputs.size()) +
                                 " grad_outputs, expected one per differentiable output (" +
                                 std::to_string(diff_outs.size()) + ")");
        for (const Tensor& g : grad_outputs) v.push_back(g.detach().clone().requires_grad_(true));
    } else {
        Rng rng(options.seed + 0x9e3779b97f4a7c15ULL);
        for (std::size_t p : diff_outs) {
            const Tensor& o = outs[p];
            cvec values(static_cast<std::size_t>(o.numel()));
            for (auto& e : values) e = o.is_complex() ? cd(rng.normal(), rng.normal()) : cd(rng.normal(), 0);
            v.push_back(write(values, o.sizes(), o.dtype()).requires_grad_(true));
        }
    }
    const std::size_t n_in = inputs.size();
    // F(x, v) = vᵀ J_f(x): the gradients of Σ v·f with respect to the inputs that require grad.
    GradcheckFunction F = [fn, diff, diff_outs, n_in](const tensor_list& all) -> tensor_list {
        AutoGradMode enable(true);
        tensor_list x(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n_in));
        for (std::size_t p : diff) {
            if (x[p].requires_grad()) continue;
            // Under check_forward_ad the inputs are dual tensors: keep the tangent on the
            // new leaf, so that forward mode runs over the reverse pass below.
            auto [primal, tangent] = forward_ad::unpack_dual(x[p]);
            Tensor leaf = primal.detach().requires_grad_(true);
            x[p] = tangent.defined() ? forward_ad::make_dual(leaf, tangent) : leaf;
        }
        const tensor_list y = fn(x);
        tensor_list ys, ws, xs;
        for (std::size_t k = 0; k < diff_outs.size(); ++k) {
            if (!y.at(diff_outs[k]).requires_grad()) continue;
            ys.push_back(y[diff_outs[k]]);
            ws.push_back(all.at(n_in + k));
        }
        for (std::size_t p : diff) xs.push_back(x[p]);
        tensor_list g = ys.empty() ? tensor_list(xs.size()) : grad(ys, xs, ws, true, true, true);
        for (std::size_t k = 0; k < g.size(); ++k)
            if (!g[k].defined()) g[k] = zeros_like(xs[k]);
        return g;
    };
    tensor_list all = inputs;
    all.insert(all.end(), v.begin(), v.end());
    return gradcheck(F, all, options);
}

}  // namespace gradc::autograd
