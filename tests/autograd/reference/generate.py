#!/usr/bin/python3
"""Reference values for tests/autograd, computed with PyTorch.

Run with Debian's python3-torch:  /usr/bin/python3 tests/autograd/reference/generate.py
It writes reference_data.hpp and reference_data.cpp next to this file: a map from case names to flat lists of
doubles (complex values interleaved as re, im). The inputs are written too, so the C++
tests read them from the same place and cannot drift from what PyTorch saw.
Where PyTorch 1.13 and PyTorch's "Autograd mechanics" notes disagree, the tests follow the
notes and do not use a value from here.
"""
import torch

from reference_io import UNARY, flat_values, write_header

torch.set_default_dtype(torch.float64)
cases = {}


def put(name, t):
    cases[name] = flat_values(t)


def leaf(values, shape=None):
    t = torch.tensor(values, dtype=torch.float64)
    if shape is not None:
        t = t.reshape(shape)
    return t.requires_grad_()


# ---- the tutorial reverse-mode implementation's worked example -----------------------
x1 = leaf([0.0140, 0.5773, 0.0469])
x2 = leaf([0.3232, 0.4903, 0.9395])
g = torch.tensor([0.4948, 0.8746, 0.7076])
(torch.sin(x1) + x1 * x2).backward(g)
put("seed.vector.x1", x1); put("seed.vector.x2", x2); put("seed.vector.g", g)
put("seed.vector.x1.grad", x1.grad); put("seed.vector.x2.grad", x2.grad)

# ---- unary functions of the rule table: value, first and second derivative -----------
for name, (f, xs) in UNARY.items():
    x = leaf(xs)
    y = f(x)
    (d1,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    if d1.requires_grad:
        (d2,) = torch.autograd.grad(d1.sum(), x, allow_unused=True)
    else:
        d2 = None  # piecewise linear (abs, relu, neg): the derivative is constant
    if d2 is None:
        d2 = torch.zeros_like(x)
    put(f"unary.{name}.x", x); put(f"unary.{name}.y", y); put(f"unary.{name}.d1", d1); put(f"unary.{name}.d2", d2)

# ---- binary functions with broadcasting ([2,3] with [3]) ------------------------------
a_vals = [[0.5, 1.2, 2.0], [0.9, 1.5, 0.3]]
b_vals = [1.1, 0.7, 2.5]
binary = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div, "pow": torch.pow,
    "atan2": torch.atan2, "hypot": torch.hypot, "maximum": torch.maximum, "minimum": torch.minimum,
}
w = torch.tensor([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]])
for name, f in binary.items():
    a = leaf(a_vals)
    b = leaf(b_vals)
    y = f(a, b)
    y.backward(w)
    put(f"binary.{name}.y", y); put(f"binary.{name}.a.grad", a.grad); put(f"binary.{name}.b.grad", b.grad)
put("binary.a", torch.tensor(a_vals)); put("binary.b", torch.tensor(b_vals)); put("binary.w", w)

# max/min ties: each side gets half
a = leaf([1.0, 2.0, 3.0]); b = leaf([1.0, 0.0, 3.0])
torch.maximum(a, b).sum().backward()
put("ties.maximum.a.grad", a.grad); put("ties.maximum.b.grad", b.grad)

# ---- reductions -----------------------------------------------------------------------
m = [[0.5, -1.0, 2.0, 0.25], [1.5, 0.0, -0.5, 3.0], [2.0, 2.0, 1.0, -2.5]]
put("reduce.m", torch.tensor(m))
wr = torch.tensor([0.3, -0.7, 1.1])
put("reduce.w", wr)


def reduce_case(name, f):
    x = leaf(m)
    y = f(x)
    y.backward(wr.reshape(y.shape) if y.numel() == 3 else torch.ones_like(y))
    put(f"reduce.{name}.y", y); put(f"reduce.{name}.grad", x.grad)


reduce_case("sum1", lambda x: x.sum(1))
reduce_case("mean1", lambda x: x.mean(1))
reduce_case("prod1", lambda x: x.prod(1))          # row 1 contains a zero
reduce_case("amax1", lambda x: x.amax(1))          # row 2 has a tie
reduce_case("max1", lambda x: x.max(1).values)
reduce_case("min1", lambda x: x.min(1).values)
reduce_case("logsumexp1", lambda x: x.logsumexp(1))
reduce_case("norm", lambda x: x.norm())
reduce_case("prod", lambda x: (x + 3.0).prod())
reduce_case("amax", lambda x: x.amax())
x = leaf(m); y = torch.softmax(x, 1); y.backward(torch.tensor(m) * 0.5); put("reduce.softmax.y", y); put("reduce.softmax.grad", x.grad)
x = leaf(m); y = torch.log_softmax(x, 0); y.backward(torch.tensor(m) * 0.5); put("reduce.log_softmax.y", y); put("reduce.log_softmax.grad", x.grad)

# ---- matrix products ------------------------------------------------------------------
A = [[0.2, -1.0, 0.5], [1.5, 0.3, -0.7]]
B = [[1.0, 0.4], [-0.6, 2.0], [0.9, -1.1]]
v = [0.3, -1.2, 2.0]
put("linalg.A", torch.tensor(A)); put("linalg.B", torch.tensor(B)); put("linalg.v", torch.tensor(v))
a = leaf(A); b = leaf(B); y = a.mm(b); y.backward(torch.tensor([[1.0, 2.0], [-1.0, 0.5]]))
put("linalg.mm.y", y); put("linalg.mm.A.grad", a.grad); put("linalg.mm.B.grad", b.grad)
a = leaf(A); vv = leaf(v); y = a.mv(vv); y.backward(torch.tensor([0.7, -0.2]))
put("linalg.mv.y", y); put("linalg.mv.A.grad", a.grad); put("linalg.mv.v.grad", vv.grad)
p = leaf(v); q = leaf([1.0, 0.5, -0.25]); y = torch.dot(p, q); y.backward()
put("linalg.dot.y", y); put("linalg.dot.p.grad", p.grad); put("linalg.dot.q.grad", q.grad)
p = leaf(v); q = leaf([1.0, 0.5]); y = torch.outer(p, q); (y * torch.arange(6.0).reshape(3, 2)).sum().backward()
put("linalg.outer.p.grad", p.grad); put("linalg.outer.q.grad", q.grad)
torch.manual_seed(0)
X = torch.randn(2, 3, 4); Y = torch.randn(2, 4, 5); G = torch.randn(2, 3, 5)
put("linalg.bmm.X", X); put("linalg.bmm.Y", Y); put("linalg.bmm.G", G)
x = X.clone().requires_grad_(); yy = Y.clone().requires_grad_(); z = torch.bmm(x, yy); z.backward(G)
put("linalg.bmm.y", z); put("linalg.bmm.X.grad", x.grad); put("linalg.bmm.Y.grad", yy.grad)
# broadcast matmul: (2,3,4) @ (4,5)
x = X.clone().requires_grad_(); yy = Y[0].clone().requires_grad_(); z = torch.matmul(x, yy); z.backward(G)
put("linalg.matmul_b.y", z); put("linalg.matmul_b.X.grad", x.grad); put("linalg.matmul_b.Y.grad", yy.grad)
# a larger product exercising the blocked kernel's tails
P = torch.randn(37, 70); Q = torch.randn(70, 29)
put("linalg.big.P", P); put("linalg.big.Q", Q); put("linalg.big.y", P @ Q)

# ---- views, joins and indexing -------------------------------------------------------
base = [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]
put("views.base", torch.tensor(base))
wv = torch.tensor(base) * 0.1
x = leaf(base); (x.t() * wv.t()).sum().backward(); put("views.t.grad", x.grad)
x = leaf(base); (x[:, 1:4:2] ** 2).sum().backward(); put("views.slice.grad", x.grad)
x = leaf(base); (x.select(0, 1) * torch.tensor([1.0, -1.0, 2.0, -2.0])).sum().backward(); put("views.select.grad", x.grad)
x = leaf([1.0, 2.0, 3.0]); (x.unsqueeze(0).expand(4, 3) * torch.arange(12.0).reshape(4, 3)).sum().backward(); put("views.expand.grad", x.grad)
x = leaf(base); (x.reshape(2, 6).narrow(1, 2, 3) ** 3).sum().backward(); put("views.narrow.grad", x.grad)
x = leaf(base); idx = torch.tensor([2, 0, 2]); (x.index_select(0, idx) * wv).sum().backward(); put("views.index_select.grad", x.grad)
x = leaf(base); gi = torch.tensor([[0, 3], [1, 1], [2, 0]]); y = x.gather(1, gi); (y * torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum().backward()
put("views.gather.y", y); put("views.gather.grad", x.grad)
p = leaf([1.0, 2.0]); q = leaf([[3.0, 4.0], [5.0, 6.0]]); y = torch.cat([p.unsqueeze(0), q], 0); (y * y).sum().backward()
put("views.cat.p.grad", p.grad); put("views.cat.q.grad", q.grad)
p = leaf([1.0, 2.0]); q = leaf([3.0, 4.0]); y = torch.stack([p, q], 1); (y * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
put("views.stack.p.grad", p.grad); put("views.stack.q.grad", q.grad)

# ---- in-place -------------------------------------------------------------------------
x = leaf([1.0, 2.0, 3.0, 4.0]); b = x * 1.0; b[1:3].mul_(x[0:2]); (b * b).sum().backward()
put("inplace.view_mul.b", b); put("inplace.view_mul.grad", x.grad)
x = leaf([0.5, -1.0, 2.0]); y = x * 2.0; y.sin_(); y.add_(x); y.sum().backward()
put("inplace.chain.y", y); put("inplace.chain.grad", x.grad)
x = leaf([0.5, -1.0, 2.0]); s = leaf([3.0]); b = x.clone(); b[0:1].copy_(s * 2.0); (b ** 2).sum().backward()
put("inplace.copy.x.grad", x.grad); put("inplace.copy.s.grad", s.grad)

# in-place on a view of a base that is not contiguous (a transposed tensor detached)
base = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).t().detach()
w = leaf([0.5, -1.0, 2.0]); base.select(1, 0).mul_(w)
v = base.select(0, 1)
((base * base).sum() + 3.0 * v.sum()).backward()
put("inplace.noncontiguous.base", base); put("inplace.noncontiguous.w.grad", w.grad)

# ---- clamp at and inside the bounds ---------------------------------------------------
x = leaf([-2.0, -1.0, 0.0, 1.0, 2.0]); x.clamp(-1.0, 1.0).sum().backward(); put("clamp.grad", x.grad)

# ---- higher order ---------------------------------------------------------------------
x = leaf([0.3, -0.8])
y = torch.tanh(x).sum()
(d1,) = torch.autograd.grad(y, x, create_graph=True)
(d2,) = torch.autograd.grad(d1.sum(), x, create_graph=True)
(d3,) = torch.autograd.grad(d2.sum(), x)
put("higher.tanh.d1", d1); put("higher.tanh.d2", d2); put("higher.tanh.d3", d3)
x = leaf([0.7, 1.3]); w2 = leaf([[0.5, -1.0], [2.0, 0.25]])
y = (torch.sigmoid(w2.mv(x)) * x).sum()
(gx,) = torch.autograd.grad(y, x, create_graph=True)
(hxw,) = torch.autograd.grad(gx.sum(), w2)
put("higher.mixed.gx", gx); put("higher.mixed.hxw", hxw)

# prod with zeros, differentiated twice (one zero per row, two zeros in a row)
x = leaf([[0.5, 0.0, 2.0, 1.5], [1.5, -1.0, 0.0, 0.0], [0.7, 1.2, -0.4, 2.0]])
(d1,) = torch.autograd.grad(x.prod(1).sum(), x, create_graph=True)
(d2,) = torch.autograd.grad((d1 * torch.arange(12.0).reshape(3, 4)).sum(), x)
put("higher.prod_zeros.x", x); put("higher.prod_zeros.d1", d1); put("higher.prod_zeros.d2", d2)
x = leaf([2.0, 0.0, 3.0, -1.0])
put("higher.prod_zero_all.x", x); put("higher.prod_zero_all.hessian", torch.autograd.functional.hessian(torch.prod, x))

# ---- complex (conjugate Wirtinger convention) ----------------------------------------
zv = torch.tensor([1.0 + 2.0j, -0.5 + 0.25j, 3.0 - 1.0j])
put("complex.z", zv)
for name, f in {
    "abs": lambda z: z.abs().sum(),
    "angle": lambda z: z.angle().sum(),
    "real": lambda z: z.real.sum(),
    "imag": lambda z: z.imag.sum(),
    "mulconj": lambda z: (z * z.conj()).real.sum(),
    "exp_abs": lambda z: torch.exp(z).abs().sum(),
    "sin_real": lambda z: torch.sin(z * z).real.sum(),
    "square_abs": lambda z: (z * z).abs().sum(),
}.items():
    z = zv.clone().requires_grad_()
    f(z).backward()
    put(f"complex.{name}.grad", z.grad)
# real input in a complex computation: the gradient is real
x = leaf([0.5, 1.5]); c = torch.tensor([1.0 + 1.0j, 2.0 - 1.0j]); (x * c).abs().sum().backward(); put("complex.real_input.grad", x.grad)

# C -> C operations with complex output gradients: the gradient is
# conj(df/dz) * g + conj(df/dz*) * conj(g)... as PyTorch returns it (grad = dL/dz*).
zc = torch.tensor([[0.6 + 0.8j, -0.4 + 0.3j, 1.1 - 0.5j], [0.2 - 0.7j, -0.9 - 0.2j, 0.5 + 0.45j]])
wc = torch.tensor([0.3 + 0.1j, -0.2 + 0.5j, 0.7 - 0.4j])
gc = torch.tensor([[1.0 - 0.5j, 0.25 + 0.75j, -0.5 + 0.2j], [0.4 + 0.4j, -1.0 + 0.1j, 0.3 - 0.9j]])
put("cplx.z", zc); put("cplx.w", wc); put("cplx.g", gc)
complex_unary = {
    "exp": torch.exp, "log": torch.log, "log10": torch.log10, "sqrt": torch.sqrt,
    "sin": torch.sin, "cos": torch.cos, "tan": torch.tan, "asin": torch.asin, "acos": torch.acos,
    "atan": torch.atan, "sinh": torch.sinh, "cosh": torch.cosh, "tanh": torch.tanh,
    "sigmoid": torch.sigmoid, "neg": torch.neg, "square": torch.square, "conj": lambda z: z.conj() * 1.0,
    "reciprocal": lambda z: 1.0 / z, "scalar_pow": lambda z: z * z * z,
}
for name, f in complex_unary.items():
    z = zc.clone().requires_grad_()
    y = f(z)
    y.backward(gc)
    put(f"cplx.unary.{name}.y", y); put(f"cplx.unary.{name}.grad", z.grad)
complex_binary = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div}
for name, f in complex_binary.items():
    z = zc.clone().requires_grad_(); w_ = wc.clone().requires_grad_()
    y = f(z, w_)
    y.backward(gc)
    put(f"cplx.binary.{name}.y", y); put(f"cplx.binary.{name}.z.grad", z.grad); put(f"cplx.binary.{name}.w.grad", w_.grad)
# complex tensor with a real tensor (real gradient for the real operand)
z = zc.clone().requires_grad_(); r = leaf([0.5, -1.5, 2.0]); (z * r).backward(gc)
put("cplx.mixed.z.grad", z.grad); put("cplx.mixed.r.grad", r.grad)
# real -> complex -> real: the gradient of the real computation
x = leaf([0.3, -1.2, 0.8])
(torch.exp(x * 1j) * torch.exp(x * -1j) * x).real.sum().backward()
put("cplx.roundtrip.grad", x.grad)
gs = torch.tensor([0.5 - 0.25j, 1.0 + 0.5j])
for name, f in {
    "sum1": lambda z: z.sum(1), "mean1": lambda z: z.mean(1), "prod1": lambda z: z.prod(1),
    "mv": lambda z: z.mv(wc), "norm": lambda z: torch.stack([z.norm(), z.norm() * 1j]),
}.items():
    z = zc.clone().requires_grad_()
    y = f(z)
    y.backward(gs)
    put(f"cplx.reduce.{name}.y", y); put(f"cplx.reduce.{name}.grad", z.grad)
z = zc.clone().requires_grad_(); w_ = wc.clone().requires_grad_(); y = torch.dot(z[0], w_); y.backward(torch.tensor(0.5 + 1.5j))
# Debian's torch 1.13 returns 0 for the value of a complex dot (its BLAS zdotu path);
# the value is taken from the elementwise form, the gradients from dot's backward.
put("cplx.dot.y", (zc[0] * wc).sum()); put("cplx.dot.z.grad", z.grad); put("cplx.dot.w.grad", w_.grad)
z = zc.clone().requires_grad_(); m2 = torch.tensor([[0.5 - 1.0j, 0.2], [1.5j, -0.3 + 0.3j], [1.0, 0.7 - 0.1j]]).requires_grad_()
y = z.mm(m2); y.backward(torch.tensor([[1.0 + 1.0j, -0.5j], [0.25, 2.0 - 1.0j]]))
put("cplx.mm.m2", m2); put("cplx.mm.y", y); put("cplx.mm.z.grad", z.grad); put("cplx.mm.m2.grad", m2.grad)
z = zc.clone().requires_grad_(); y = z.t()[1:3].reshape(-1); y.backward(torch.arange(4.0) * (1 - 1j))
put("cplx.views.grad", z.grad)

# ---- torch.autograd.functional ---------------------------------------------------------
import torch.autograd.functional as AF
fx = torch.tensor([0.4, -0.9, 1.3]); fy = torch.tensor([1.5, 0.2, -0.7])
put("functional.x", fx); put("functional.y", fy)


def two_out(x, y):
    return torch.sin(x) * y, (x * y * y).sum().reshape(1), x[:2].exp()


jac = AF.jacobian(two_out, (fx, fy))
for i in range(3):
    for j in range(2):
        put(f"functional.jacobian.{i}.{j}", jac[i][j])
fv = (torch.tensor([1.0, -2.0, 0.5]), torch.tensor([3.0]), torch.tensor([0.25, -0.75]))
out, vjp_ = AF.vjp(two_out, (fx, fy), fv)
put("functional.vjp.v0", fv[0]); put("functional.vjp.v1", fv[1]); put("functional.vjp.v2", fv[2])
put("functional.vjp.0", vjp_[0]); put("functional.vjp.1", vjp_[1])
tv = (torch.tensor([0.5, 1.0, -1.0]), torch.tensor([2.0, 0.0, 1.0]))
put("functional.jvp.v0", tv[0]); put("functional.jvp.v1", tv[1])
out, jvp_ = AF.jvp(two_out, (fx, fy), tv)
for i in range(3):
    put(f"functional.jvp.{i}", jvp_[i])


def scalar_fn(x, y):
    return (x.pow(3) * y).sum() + x[0] * x[1] * y[2] + torch.tanh(y).sum()


hes = AF.hessian(scalar_fn, (fx, fy))
for i in range(2):
    for j in range(2):
        put(f"functional.hessian.{i}.{j}", hes[i][j])
_, hvp_ = AF.hvp(scalar_fn, (fx, fy), tv)
_, vhp_ = AF.vhp(scalar_fn, (fx, fy), tv)
put("functional.hvp.0", hvp_[0]); put("functional.hvp.1", hvp_[1])
put("functional.vhp.0", vhp_[0]); put("functional.vhp.1", vhp_[1])
# create_graph: the Jacobian is differentiable w.r.t. the caller's input
xg = fx.clone().requires_grad_()
J = AF.jacobian(lambda x: torch.sin(x) * x.sum(), xg, create_graph=True)
(J * J).sum().backward()
put("functional.create_graph.J", J); put("functional.create_graph.grad", xg.grad)

# ---- custom functions ------------------------------------------------------------------
class Softplus(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, beta):
        ctx.save_for_backward(x)
        ctx.beta = beta
        return torch.nn.functional.softplus(x * beta) / beta

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return torch.sigmoid(x * ctx.beta) * g, None


class SumProd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a + b, a * b

    @staticmethod
    def backward(ctx, gs, gp):
        a, b = ctx.saved_tensors
        return gs + b * gp, gs + a * gp


x = leaf([-1.0, 0.0, 2.0, 0.7])
y = Softplus.apply(x, 1.5)
(d1,) = torch.autograd.grad(y.sum(), x, create_graph=True)
(d2,) = torch.autograd.grad(d1.sum(), x)
put("custom.softplus.x", x); put("custom.softplus.y", y); put("custom.softplus.d1", d1); put("custom.softplus.d2", d2)
a = leaf([2.0, -1.0]); b = leaf([3.0, 0.5])
s_, p_ = SumProd.apply(a, b)
(s_ * p_).sum().backward()
put("custom.sumprod.a.grad", a.grad); put("custom.sumprod.b.grad", b.grad)

# ---- hooks (only where 1.13 agrees with the notes: tensor hooks, node post-hooks) -----
x = leaf([0.5, -1.5])
h = x.exp()
h.register_hook(lambda g: g * 2.0)
h.register_hook(lambda g: g + 1.0)
h.grad_fn.register_hook(lambda gi, go: (gi[0] * 3.0,))
(h * h).sum().backward()
put("hooks.chain.x", x); put("hooks.chain.grad", x.grad)
x = leaf([1.0])
t = x.sin()
before = []
t.register_hook(lambda g: before.append(g.clone()))
t.cos_()
t.backward()
put("hooks.inplace.before", before[0]); put("hooks.inplace.grad", x.grad)

# ---- scans and decompositions (test_decompositions.cpp) -------------------------------
import torch.autograd.forward_ad as fwAD


def tangent_of(f, primals, tangents):
    """f's output and its tangent along `tangents`, by forward-mode AD."""
    with fwAD.dual_level():
        out = f(*[fwAD.make_dual(p, t) for p, t in zip(primals, tangents)])
        unpacked = fwAD.unpack_dual(out)
        return unpacked.primal.detach(), unpacked.tangent


torch.manual_seed(1)
S = torch.randn(2, 3, 4); GS = torch.randn(2, 3, 4)
put("scan.x", S); put("scan.g", GS)
for name, d in [("cumsum1", 1), ("cumsum_last", -1), ("cumsum0", 0)]:
    x = S.clone().requires_grad_(); y = torch.cumsum(x, d); y.backward(GS)
    put(f"scan.{name}.y", y); put(f"scan.{name}.grad", x.grad)
put("scan.cumsum_float.y", torch.cumsum(S.float() * 1000.0, 2))

# Cholesky of A = X Xᵀ + 3I: the factor, its gradient for a full gL (symmetric, as
# PyTorch's), the gradient through X, a second derivative, and the tangent along a
# symmetric direction (where PyTorch 1.13, which does not symmetrise the tangent, agrees).
X = torch.randn(3, 3); GL = torch.randn(3, 3); W2 = torch.randn(3, 3); TA = torch.randn(3, 3)
TA = TA + TA.t()
I3 = torch.eye(3)
A = X @ X.t() + 3.0 * I3
put("chol.X", X); put("chol.G", GL); put("chol.W2", W2); put("chol.A", A); put("chol.T", TA)
a = A.clone().requires_grad_(); L = torch.linalg.cholesky(a); L.backward(GL)
put("chol.L", L); put("chol.A.grad", a.grad)
x = X.clone().requires_grad_()
(gx,) = torch.autograd.grad((torch.linalg.cholesky(x @ x.t() + 3.0 * I3) * GL).sum(), x, create_graph=True)
(gx2,) = torch.autograd.grad((gx * W2).sum(), x)
put("chol.X.grad", gx); put("chol.X.grad2", gx2)
put("chol.jvp", tangent_of(torch.linalg.cholesky, [A], [TA])[1])
XB = torch.randn(2, 4, 4); GB = torch.randn(2, 4, 4)
AB = XB @ XB.transpose(1, 2) + 4.0 * torch.eye(4)
put("chol_batch.A", AB); put("chol_batch.G", GB)
a = AB.clone().requires_grad_(); L = torch.linalg.cholesky(a); L.backward(GB)
put("chol_batch.L", L); put("chol_batch.A.grad", a.grad)

# Triangular solves: upper on the left, lower unitriangular on the right.
T = torch.randn(3, 3) + 3.0 * I3; B = torch.randn(3, 2); G = torch.randn(3, 2)
put("tri.A", T); put("tri.B", B); put("tri.G", G)
a = T.clone().requires_grad_(); b = B.clone().requires_grad_()
y = torch.linalg.solve_triangular(a, b, upper=True); y.backward(G)
put("tri.upper_left.X", y); put("tri.upper_left.A.grad", a.grad); put("tri.upper_left.B.grad", b.grad)
a = T.clone().requires_grad_(); bt = B.t().clone().requires_grad_()
y = torch.linalg.solve_triangular(a, bt, upper=False, left=False, unitriangular=True); y.backward(G.t())
put("tri.lower_right_unit.X", y); put("tri.lower_right_unit.A.grad", a.grad); put("tri.lower_right_unit.B.grad", bt.grad)

# General solves: a matrix, a vector and a batch broadcast against one right-hand side.
M = torch.randn(3, 3) + 2.0 * I3; v = torch.randn(3); gv = torch.randn(3)
put("solve.A", M); put("solve.B", B); put("solve.G", G); put("solve.v", v); put("solve.gv", gv)
a = M.clone().requires_grad_(); b = B.clone().requires_grad_(); y = torch.linalg.solve(a, b); y.backward(G)
put("solve.X", y); put("solve.A.grad", a.grad); put("solve.B.grad", b.grad)
a = M.clone().requires_grad_(); b = v.clone().requires_grad_(); y = torch.linalg.solve(a, b); y.backward(gv)
put("solve.vector.X", y); put("solve.vector.A.grad", a.grad); put("solve.vector.b.grad", b.grad)
MB = torch.randn(2, 3, 3) + 2.0 * I3; GB = torch.randn(2, 3, 2)
put("solve.batch.A", MB); put("solve.batch.G", GB)
a = MB.clone().requires_grad_(); b = B.clone().requires_grad_(); y = torch.linalg.solve(a, b); y.backward(GB)
put("solve.batch.X", y); put("solve.batch.A.grad", a.grad); put("solve.batch.B.grad", b.grad)
TM = torch.randn(3, 3); TB = torch.randn(3, 2)
put("solve.TA", TM); put("solve.TB", TB); put("solve.jvp", tangent_of(torch.linalg.solve, [M, B], [TM, TB])[1])

# inv and logdet (the second of the batch has a negative determinant: NaN, gradient 0).
a = M.clone().requires_grad_(); y = torch.linalg.inv(a); y.backward(TM)
put("inv.X", y); put("inv.A.grad", a.grad)
a = M.clone().requires_grad_(); y = torch.logdet(a)
(g1,) = torch.autograd.grad(y, a, create_graph=True)
(g2,) = torch.autograd.grad((g1 * W2).sum(), a)
put("logdet.y", y); put("logdet.A.grad", g1); put("logdet.A.grad2", g2)
put("logdet.jvp", tangent_of(torch.logdet, [M], [TM])[1])
LB = torch.stack([M, torch.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 2.0]])])
put("logdet.batch.A", LB)
a = LB.clone().requires_grad_(); y = torch.logdet(a); y.backward(torch.tensor([1.5, -0.5]))
put("logdet.batch.y", y); put("logdet.batch.A.grad", a.grad)

# ---- write ----------------------------------------------------------------------------
write_header(cases, "reference_data.hpp", "reference", "generate.py")
