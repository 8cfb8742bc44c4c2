#!/usr/bin/env python3
"""Coefficients of the batch erfc tail (include/gradc/math/erfc_tail.hpp).

For 2.2 <= x <= 28, erfc(x) = e^(-x²) / (x·√π) · h(t), t = 1/x, where
h(t) = √π·x·e^(x²)·erfc(x) is smooth on [1/28, 1/2.2] (1 at t = 0, 1 - t²/2 + ... for
small t). h is interpolated at the Chebyshev points of degree DEGREE in
u = (2t - (1/28 + 1/2.2)) / (1/2.2 - 1/28) ∈ [-1, 1], with mpmath at 40 digits, and
written as a polynomial in u (its monomial coefficients sum to about 1 in magnitude, so
Horner's rule in double loses nothing to cancellation). Prints the C++ constants, and the
largest relative error of the polynomial (exact arithmetic) and of Horner's rule in
double precision against mpmath at 4,000 points.

Needs mpmath (Debian's python3-mpmath): /usr/bin/python3 tools/erfc_tail_coefficients.py
"""
import mpmath as mp

mp.mp.dps = 40
DEGREE = 20
LOW, HIGH = mp.mpf(1) / 28, mp.mpf(10) / 22  # t = 1/x for x = 28 and x = 2.2


def h(t):
    x = 1 / t
    return mp.sqrt(mp.pi) * x * mp.exp(x * x) * mp.erfc(x)


def chebyshev(f, n):
    m = n + 1
    nodes = [mp.cos(mp.pi * (k + mp.mpf(1) / 2) / m) for k in range(m)]
    values = [f((HIGH - LOW) / 2 * u + (HIGH + LOW) / 2) for u in nodes]
    c = [2 * sum(values[k] * mp.cos(mp.pi * j * (k + mp.mpf(1) / 2) / m) for k in range(m)) / m for j in range(m)]
    c[0] /= 2
    return c


def monomials(c):
    basis = [[mp.mpf(1)], [mp.mpf(0), mp.mpf(1)]]
    for k in range(2, len(c)):
        nxt = [mp.mpf(0)] * (k + 1)
        for i, v in enumerate(basis[k - 1]):
            nxt[i + 1] += 2 * v
        for i, v in enumerate(basis[k - 2]):
            nxt[i] -= v
        basis.append(nxt)
    out = [mp.mpf(0)] * len(c)
    for j, cj in enumerate(c):
        for i, v in enumerate(basis[j]):
            out[i] += cj * v
    return out


def main():
    coefficients = monomials(chebyshev(h, DEGREE))
    as_double = [float(a) for a in coefficients]
    scale, offset = 2 / (HIGH - LOW), -(HIGH + LOW) / (HIGH - LOW)
    print(f"// u = t·{float(scale)!r} + {float(offset)!r}")
    print(f"inline constexpr double erfc_tail_u_scale = {float(scale)!r};")
    print(f"inline constexpr double erfc_tail_u_offset = {float(offset)!r};")
    print(f"inline constexpr std::array<double, {DEGREE + 1}> erfc_tail_coefficients{{")
    for a in as_double:
        print(f"    {a!r},")
    print("};")
    exact = rounded = mp.mpf(0)
    for k in range(4000):
        t = LOW + (HIGH - LOW) * k / 3999
        u = (2 * t - (HIGH + LOW)) / (HIGH - LOW)
        ref = h(t)
        p = mp.mpf(0)
        for a in reversed(coefficients):
            p = p * u + a
        exact = max(exact, abs(p / ref - 1))
        q, ud = 0.0, float(u)
        for a in reversed(as_double):
            q = q * ud + a
        rounded = max(rounded, abs(q / ref - 1))
    print(f"// largest relative error: {mp.nstr(exact, 3)} (polynomial), {mp.nstr(rounded, 3)} (Horner in double)")


if __name__ == "__main__":
    main()
