#!/usr/bin/python3
"""Forward-mode AD reference values for tests/autograd/test_forward_ad.cpp, computed with
PyTorch's torch.autograd.forward_ad.

Run with Debian's python3-torch:  /usr/bin/python3 tests/autograd/reference/generate_forward_ad.py
It writes forward_ad_data.hpp and forward_ad_data.cpp next to this file: a map from case names to flat lists of
doubles (complex values interleaved as re, im). Each case stores its primals and tangents
too, so the C++ test reads its inputs from here and cannot drift from what PyTorch saw.
"""
import math

import torch

from reference_io import UNARY, flat_values, general, write_header
import torch.autograd.forward_ad as fwAD

torch.set_default_dtype(torch.float64)
cases = {}


def put(name, t):
    cases[name] = flat_values(t)


def tangent(t):
    return fwAD.unpack_dual(t).tangent


def T(values, shape=None):
    t = torch.tensor(values, dtype=torch.float64)
    return t.reshape(shape) if shape is not None else t


def C(re, im, shape=None):
    z = torch.complex(T(re), T(im))
    return z.reshape(shape) if shape is not None else z


def jvp_case(name, f, primals, tangents):
    """Stores primal i as name.x<i> (with .shape and .complex), tangent i as name.u<i>,
    output k as name.y<k> and its tangent as name.t<k>."""
    with fwAD.dual_level():
        duals = [fwAD.make_dual(p, u) for p, u in zip(primals, tangents)]
        out = f(*duals)
        if not isinstance(out, (tuple, list)):
            out = (out,)
        for k, o in enumerate(out):
            put("%s.y%d" % (name, k), fwAD.unpack_dual(o).primal)
            t = tangent(o)
            put("%s.t%d" % (name, k), t if t is not None else torch.zeros_like(o))
    for i, (p, u) in enumerate(zip(primals, tangents)):
        put("%s.x%d" % (name, i), p)
        put("%s.u%d" % (name, i), u)
        cases["%s.x%d.shape" % (name, i)] = [float(d) for d in p.shape]
        cases["%s.x%d.complex" % (name, i)] = [1.0 if p.is_complex() else 0.0]


# ---- elementwise, real: every unary function of the rule table -----------------------
directions = [0.7, -1.1, 0.3, 2.0, -0.6]
unary = dict(UNARY, square=(torch.square, general))
for name, (f, xs) in unary.items():
    jvp_case("unary." + name, f, [T(xs)], [T(directions)])

# Conventions at non-differentiable points ("Autograd mechanics" notes): abs'(0) = 0,
# relu'(0) = 0, clamp passes the tangent on [lo, hi] including the bounds, maximum/minimum
# split ties.
jvp_case("edge.abs", torch.abs, [T([-1.0, 0.0, 2.0])], [T([1.0, 1.0, 1.0])])
jvp_case("edge.relu", torch.relu, [T([-1.0, 0.0, 2.0])], [T([1.0, 1.0, 1.0])])
jvp_case("edge.clamp", lambda x: torch.clamp(x, -0.5, 0.5), [T([-0.7, -0.5, 0.0, 0.5, 0.9])], [T([1.0, 2.0, 3.0, 4.0, 5.0])])
jvp_case("edge.maximum", torch.maximum, [T([1.0, 2.0, 3.0]), T([1.0, 0.5, 4.0])], [T([1.0, 1.0, 1.0]), T([3.0, 3.0, 3.0])])
jvp_case("edge.minimum", torch.minimum, [T([1.0, 2.0, 3.0]), T([1.0, 0.5, 4.0])], [T([1.0, 1.0, 1.0]), T([3.0, 3.0, 3.0])])

# ---- elementwise, binary with broadcasting ([2, 3] with [3]) ---------------------------
a = T([0.5, 1.2, 2.0, 0.9, 1.5, 0.3], (2, 3))
b = T([1.1, 0.7, 2.5])
ta = T([1.0, -2.0, 0.5, 0.25, 3.0, -1.0], (2, 3))
tb = T([1.25, 1.0, -0.5])
binary = {
    "add": lambda x, y: torch.add(x, y, alpha=2.5), "sub": torch.sub, "mul": torch.mul, "div": torch.div,
    "pow": torch.pow, "atan2": torch.atan2, "hypot": torch.hypot, "maximum": torch.maximum,
    "minimum": torch.minimum,
}
for name, f in binary.items():
    jvp_case("binary." + name, f, [a, b], [ta, tb])
cond = torch.tensor([True, False, True])
jvp_case("binary.where", lambda x, y: torch.where(cond, x, y), [a, b], [ta, tb])
# Only one operand carries a tangent: the other counts as zero.
jvp_case("binary.mul_one_tangent", lambda x: x * b, [a], [ta])
jvp_case("binary.scalar", lambda x: 2.0 / (x + 1.0) - 3.0 * x, [a], [ta])

# ---- elementwise, complex (holomorphic and not) -----------------------------------------
z = C([0.5, -1.2, 0.3, 1.5], [0.8, 0.4, -0.9, -0.2])
uz = C([1.0, -0.5, 0.25, 2.0], [0.3, 1.5, -1.0, 0.5])
w = C([1.1, 0.2, -0.7, 0.9], [-0.3, 1.4, 0.6, 0.1])
uw = C([0.2, 0.4, -1.0, 0.7], [1.0, -0.2, 0.3, -0.8])
complex_unary = {
    "exp": torch.exp, "log": torch.log, "sin": torch.sin, "cos": torch.cos, "tan": torch.tan,
    "tanh": torch.tanh, "sqrt": torch.sqrt, "sigmoid": torch.sigmoid, "sinh": torch.sinh,
    "abs": torch.abs, "conj": lambda t: t.conj() * 1.0, "real": lambda t: t.real * 1.0,
    "imag": lambda t: t.imag * 1.0, "angle": torch.angle, "square": torch.square,
}
for name, f in complex_unary.items():
    jvp_case("complex." + name, f, [z], [uz])
for name, f in {"mul": torch.mul, "div": torch.div, "add": torch.add}.items():
    jvp_case("complex." + name, f, [z, w], [uz, uw])
# A complex function of real inputs, and a real tangent direction into a complex one.
jvp_case("complex.from_parts", lambda re, im: torch.complex(re, im) * w, [T([0.5, -1.0, 2.0, 0.3]), T([1.5, 0.2, -0.4, 1.0])],
         [T([1.0, 0.5, -1.0, 2.0]), T([0.0, 1.0, 1.0, -0.5])])
jvp_case("complex.abs_chain", lambda t: (t * t.conj()).real + torch.abs(t * w), [z], [uz])

# ---- views ------------------------------------------------------------------------------
x = T([0.1 * k - 1.0 for k in range(24)], (2, 3, 4))
ux = T([math.sin(k + 1.0) for k in range(24)], (2, 3, 4))
jvp_case("views.chain", lambda t: (t.transpose(0, 2)[1].reshape(-1) * 2.0,
                                   t[:, 1:3, ::2].flatten(), t.permute(2, 0, 1).select(0, 3),
                                   t[1, 2].unsqueeze(0).expand(3, 4), t.narrow(2, 1, 2).squeeze()),
         [x], [ux])
jvp_case("views.as_strided", lambda t: torch.as_strided(t, (2, 2), (1, 2), 1), [T([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], (2, 3))],
         [T([0.5, -1.0, 2.0, 0.25, 1.5, -0.75], (2, 3))])


# In place on views: the base's tangent follows (and a base without one gets zeros).
def inplace_views(p, q):
    base = torch.zeros(2, 3)
    base[1].copy_(p)             # a base without a tangent gets one through its view
    c = torch.stack([p, p]).clone()
    c[0].mul_(q)                 # mul_ on a view of a dual base
    c[:, 1].sin_()
    d = q.clone()
    d.add_(p, alpha=0.5).exp_()
    return base, c, d


jvp_case("inplace.views", inplace_views, [T([0.5, -1.0, 2.0]), T([1.5, 0.25, -0.5])],
         [T([1.0, 2.0, -1.0]), T([0.5, -0.5, 3.0])])
# An in-place operation on a dual tensor updates its tangent, which make_dual stored as is.
with fwAD.dual_level():
    p = T([1.0, 2.0, 3.0])
    u = T([0.5, -1.0, 2.0])
    dual = fwAD.make_dual(p, u)
    dual.mul_(3.0)
    dual[1:].mul_(T([2.0, -1.0]))
    put("inplace.dual.primal", fwAD.unpack_dual(dual).primal)
    put("inplace.dual.tangent", tangent(dual))
    put("inplace.dual.u", u)

# ---- reductions -------------------------------------------------------------------------
r = T([0.3, -1.2, 0.8, 2.0, -0.5, 1.1, 0.7, -0.9, 1.5, 0.2, -2.2, 0.4], (2, 3, 2))
ur = T([math.cos(2.0 * k) for k in range(12)], (2, 3, 2))
jvp_case("reduce.sum", lambda t: (t.sum(), t.sum((0, 2)), t.sum(1, keepdim=True)), [r], [ur])
jvp_case("reduce.mean", lambda t: (t.mean(), t.mean(2), t.mean((0, 1), keepdim=True)), [r], [ur])
jvp_case("reduce.prod", lambda t: (t.prod(), t.prod(1), t.prod(2, keepdim=True)), [r], [ur])
rz = r.clone()
rz[0, 1, 0] = 0.0
rz[1, 2, 1] = 0.0
rz[1, 2, 0] = 0.0
jvp_case("reduce.prod_zeros", lambda t: (t.prod(), t.prod(1), t.prod(2)), [rz], [ur])
rt = T([1.0, 3.0, 3.0, -1.0, 2.0, 2.0], (2, 3))  # ties at the maximum and minimum
ut = T([0.5, 1.0, 2.0, -1.0, 4.0, 0.25], (2, 3))
jvp_case("reduce.amax", lambda t: (t.amax(), t.amax(1), t.amin(0, keepdim=True), t.max(), t.min()), [rt], [ut])
jvp_case("reduce.max_dim", lambda t: (t.max(1)[0], t.min(2, keepdim=True)[0]), [r], [ur])
jvp_case("reduce.norm", lambda t: (t.norm(), torch.linalg.vector_norm(t, dim=1), torch.linalg.vector_norm(t, dim=(0, 2), keepdim=True),
                                   t.norm(p=1), t.norm(p=3)), [r], [ur])
jvp_case("reduce.norm_complex", lambda t: t.norm(), [z], [uz])
jvp_case("reduce.logsumexp", lambda t: (t.logsumexp(1), t.logsumexp((0, 2), keepdim=True)), [r], [ur])
jvp_case("reduce.softmax", lambda t: (t.softmax(1), t.log_softmax(-1)), [r], [ur])

# ---- joining and indexing ---------------------------------------------------------------
m = T([0.5, -1.0, 2.0, 1.5, 0.25, -0.75], (2, 3))
um = T([1.0, 0.5, -2.0, 0.0, 3.0, 1.0], (2, 3))
n = T([2.0, -0.5, 1.0])
un = T([-1.0, 1.0, 0.5])
idx = torch.tensor([2, 0, 2])
gidx = torch.tensor([[0, 2], [2, 1]])
jvp_case("index.ops", lambda s, v: (torch.cat([s, v.unsqueeze(0)], 0), torch.stack([s[0], v], 1), s.index_select(1, idx),
                                    s.gather(1, gidx), s.index_add(1, torch.tensor([2, 0]), v[:2].expand(2, 2)),
                                    s.scatter_add(1, gidx, v[1:].expand(2, 2))),
         [m, n], [um, un])

# ---- matrix products --------------------------------------------------------------------
A = T([0.5, -1.0, 2.0, 1.5, 0.25, -0.75], (2, 3))
uA = T([1.0, 0.5, -2.0, 0.0, 3.0, 1.0], (2, 3))
B = T([1.0, 0.5, -0.5, 2.0, 0.25, 1.5], (3, 2))
uB = T([0.5, 0.5, 1.0, -1.0, 2.0, 0.0], (3, 2))
v3 = T([2.0, -0.5, 1.0])
uv3 = T([-1.0, 1.0, 0.5])
jvp_case("matmul.mm", torch.mm, [A, B], [uA, uB])
jvp_case("matmul.mv", torch.mv, [A, v3], [uA, uv3])
jvp_case("matmul.dot", torch.dot, [v3, B[:, 0].contiguous()], [uv3, uB[:, 1].contiguous()])
P = T([0.1 * k - 0.6 for k in range(12)], (2, 1, 2, 3))
uP = T([math.sin(k) for k in range(12)], (2, 1, 2, 3))
Q = T([0.2 * k - 1.5 for k in range(18)], (3, 3, 2))
uQ = T([math.cos(k) for k in range(18)], (3, 3, 2))
jvp_case("matmul.broadcast", torch.matmul, [P, Q], [uP, uQ])
Zc = C([0.5, -1.0, 0.3, 1.1], [0.2, 0.7, -0.4, 0.6], (2, 2))
uZc = C([1.0, 0.0, -0.5, 0.25], [0.5, -1.0, 0.75, 0.0], (2, 2))
jvp_case("matmul.complex", lambda s, t: s @ t, [Zc, Zc.conj().T.contiguous()], [uZc, uZc.T.contiguous()])

# ---- forward over reverse: Hessian-vector products --------------------------------------
hx = T([0.3, -0.8, 1.2, 0.5])
hv = T([1.0, -0.5, 0.25, 2.0])


def scalar_f(t):
    return (torch.sin(t) * t.pow(2)).sum() + t.prod() + torch.logsumexp(t, 0) + (t[:2] * t[2:]).sum()


with fwAD.dual_level():
    leaf = hx.clone().requires_grad_()
    dual = fwAD.make_dual(leaf, hv)
    (g,) = torch.autograd.grad(scalar_f(dual), leaf, create_graph=True)
    put("hvp.x", hx); put("hvp.v", hv)
    put("hvp.grad", fwAD.unpack_dual(g).primal); put("hvp.Hv", tangent(g))
# Reverse over forward (the gradient of the directional derivative) is H·v too; PyTorch
# 1.13 cannot do it through logsumexp (its JVP writes in place into a saved tensor), so
# the C++ test compares it with hvp.Hv.

# ---- write ------------------------------------------------------------------------------
write_header(cases, "forward_ad_data.hpp", "forward_ad_reference", "generate_forward_ad.py")
