// gradc::to_string prints the lowered programs.

#include <catch2/catch.hpp>
#include <gradc/gradc.hpp>

TEST_CASE("to_string prints the seed example's three programs", "[lower][print]") {
    auto [x1, x2] = gradc::variables<2>();
    const std::string s = gradc::to_string(gradc::compile(sin(x1) + x1 * x2));
    const std::string expected =
        "kernel: 2 variable(s), 1 output(s), derivatives with respect to x0 x1\n"
        "primal:\n"
        "  v0 = x0\n"
        "  v1 = sin(v0)\n"
        "  v2 = x1\n"
        "  v3 = mul(v0, v2)\n"
        "  v4 = add(v1, v3)\n"
        "  y0 = v4\n"
        "tangent (JVP):\n"
        "  dv0 = dx0\n"
        "  dv2 = dx1\n"
        "  dv1 = cos(v0) * dv0\n"
        "  dv3 = v2 * dv0\n"
        "  dv3 += v0 * dv2\n"
        "  dv4 = dv1\n"
        "  dv4 += dv3\n"
        "  dy0 = dv4\n"
        "adjoint (VJP):\n"
        "  bv4 = w0\n"
        "  bv3 = bv4\n"
        "  bv1 = bv4\n"
        "  bv2 = v0 * bv3\n"
        "  bv0 = v2 * bv3\n"
        "  bv0 += cos(v0) * bv1\n"
        "  gx0 = bv0\n"
        "  gx1 = bv2\n"
        "second order (hessian: directions dx = unit vectors of the wrt variables; hvp: dx = v):\n"
        "  v, dv: the primal and the tangent program above, every direction at once\n"
        "  bv4 = 1, dbv4 = 0\n"
        "  dbv3 = dbv4\n"
        "  dbv1 = dbv4\n"
        "  dbv2 = dv0 * bv3 + v0 * dbv3\n"
        "  dbv0 = dv2 * bv3 + v2 * dbv3\n"
        "  dbv0 += D[cos(v0)] * bv1 + cos(v0) * dbv1\n"
        "  hx0 = dbv0   (row of the Hessian, or entry of H·v)\n"
        "  hx1 = dbv2   (row of the Hessian, or entry of H·v)\n";
    CHECK(s == expected);
}

TEST_CASE("to_string shows literals, conditions, gates and dropped edges", "[lower][print]") {
    auto [x, y] = gradc::variables<2>();
    const std::string s = gradc::to_string(gradc::compile(where(x < 0.5, x * 2.5, sqrt(y)), gradc::wrt(x)));
    CHECK(s.find("v1 = 0.5") != std::string::npos);
    CHECK(s.find("v2 = 2.5") != std::string::npos);
    CHECK(s.find("where((v0 < v1), v3, v5)") != std::string::npos);
    CHECK(s.find("[(v0 < v1)]") != std::string::npos);
    // y is not differentiated: sqrt's edge is not in the sweeps.
    CHECK(s.find("0.5/v5") == std::string::npos);
    CHECK(s.find("gx0 = bv0") != std::string::npos);
}
