#!/usr/bin/python3
"""Reference values for tests/autograd/test_libtorch_conformance.cpp, computed with PyTorch.

Run with Debian's python3-torch:  /usr/bin/python3 tests/autograd/reference/generate_libtorch.py
It writes libtorch_data.hpp and libtorch_data.cpp next to this file (the format of reference_io.write_header).
Flags are written as 1.0 / 0.0 and version counters as numbers.

The custom functions are the Python forms of what the C++ tests define with
gradc::autograd::Function: the C++ autograd tutorial's LinearFunction and MulConstant, and
small functions that exercise mark_dirty and needs_input_grad. Where LibTorch's C++ API
differs from Python's, the C++ behaviour is what is recorded:
- needs_input_grad: C++'s AutogradContext::needs_input_grad asks the running pass
  (Node::task_should_compute_output); Python's ctx.needs_input_grad is fixed at forward
  time. torch._C._will_engine_execute_node asks the running pass the same question the
  C++ function does (is the node the edge leads to needed or captured?), so it is used here.
"""
import torch

from reference_io import flat_values, write_header

# PyTorch's default dtype, float32, as LibTorch's: the C++ tests run under it too.
cases = {}


def put(name, t):
    cases[name] = flat_values(t)


def put_flags(name, flags):
    cases[name] = [1.0 if f else 0.0 for f in flags]


def leaf(values):
    return torch.tensor(values).requires_grad_()


# ---- 1. mark_dirty bumps the version counter ------------------------------------------
class DoubleThroughData(torch.autograd.Function):
    """Doubles its input with a raw write (no version bump of its own), marked dirty."""

    @staticmethod
    def forward(ctx, t):
        t.data.mul_(2)  # like a write through data_ptr in C++: not an in-place op
        ctx.mark_dirty(t)
        return t

    @staticmethod
    def backward(ctx, g):
        return 2 * g


class DoubleInPlace(torch.autograd.Function):
    """Doubles its input with an in-place op, marked dirty: the op and mark_dirty both count."""

    @staticmethod
    def forward(ctx, t):
        t.mul_(2)
        ctx.mark_dirty(t)
        return t

    @staticmethod
    def backward(ctx, g):
        return 2 * g


x = leaf([1.0, 2.0])
a = x * 1
y = a * a  # saves a at version 0
cases["mark_dirty.version_before"] = [float(a._version)]
DoubleThroughData.apply(a)
cases["mark_dirty.version_after"] = [float(a._version)]
try:
    y.sum().backward()
    cases["mark_dirty.stale_use_throws"] = [0.0]
except RuntimeError as e:
    assert "modified by an inplace operation" in str(e), e
    cases["mark_dirty.stale_use_throws"] = [1.0]
x = leaf([1.0, 2.0])
a = x * 3
DoubleInPlace.apply(a)
cases["mark_dirty.inplace.version_after"] = [float(a._version)]
a.sum().backward()
put("mark_dirty.inplace.x.grad", x.grad)

# ---- 2. needs_input_grad follows the inputs autograd::grad asks for -------------------
seen = []


class MulRecording(torch.autograd.Function):
    """a * b; backward records what the C++ ctx->needs_input_grad(0), (1) would say."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        edges = [ctx.next_functions[0][0], ctx.next_functions[1][0]]
        needs = [e is not None and torch._C._will_engine_execute_node(e) for e in edges]
        seen.append(needs)
        return (g * b if needs[0] else None), (g * a if needs[1] else None)


# Non-leaf inputs (a0 * 1, b0 * 1), made afresh for each pass: _will_engine_execute_node
# does not answer for leaves during grad().
a0 = leaf([1.0, 2.0])
b0 = leaf([3.0, 4.0])
put("needs_input_grad.a", a0); put("needs_input_grad.b", b0)
for name in ["grad_a", "grad_b", "grad_ab"]:
    a, b = a0 * 1, b0 * 1
    wrt = {"grad_a": [a], "grad_b": [b], "grad_ab": [a, b]}[name]
    seen.clear()
    grads = torch.autograd.grad(MulRecording.apply(a, b).sum(), wrt)
    put_flags("needs_input_grad.%s.needs" % name, seen[0])
    for i, g in enumerate(grads):
        put("needs_input_grad.%s.grad%d" % (name, i), g)
seen.clear()
MulRecording.apply(a0 * 1, b0 * 1).sum().backward()
put_flags("needs_input_grad.backward.needs", seen[0])
c = torch.tensor([3.0, 4.0])  # no grad: needs nothing, in every pass
seen.clear()
MulRecording.apply(a0 * 1, c).sum().backward()
put_flags("needs_input_grad.constant_b.needs", seen[0])

# ---- 3. retain_grad and a later in-place operation -------------------------------------
x = leaf([1.0, 2.0])
a = x * 1
a.retain_grad()
a.mul_(2)
a.sum().backward()
put("retain_grad.inplace.a.grad", a.grad)
put("retain_grad.inplace.x.grad", x.grad)
# Retained before and after two in-place operations, then used again.
x = leaf([0.5, -1.5])
a = x * 2
a.retain_grad()
a.add_(1)
a.mul_(3)
(a * a).sum().backward()
put("retain_grad.twice.x", x)
put("retain_grad.twice.a.grad", a.grad)
put("retain_grad.twice.x.grad", x.grad)


# ---- 4. the C++ autograd tutorial: LinearFunction and MulConstant ----------------------
class LinearFunction(torch.autograd.Function):
    """The tutorial's LinearFunction: its backward always returns three gradients."""

    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_bias = grad_output.sum(0) if bias is not None else None
        return grad_output.mm(weight), grad_output.t().mm(input), grad_bias


class MulConstant(torch.autograd.Function):
    """The tutorial's MulConstant: the constant travels in saved_data (ctx.constant here)."""

    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


x_vals = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
w_vals = [[0.1, 0.2, -0.3], [0.4, -0.5, 0.6], [-0.7, 0.8, 0.9], [1.0, -1.1, 1.2]]
b_vals = [0.05, -0.15, 0.25, -0.35]
g_vals = [[1.0, -2.0, 0.5, 0.25], [3.0, -1.0, -0.5, 2.0]]
put("linear.x", torch.tensor(x_vals)); put("linear.w", torch.tensor(w_vals))
put("linear.b", torch.tensor(b_vals)); put("linear.g", torch.tensor(g_vals))
for name, with_bias in [("bias", True), ("no_bias", False)]:
    x, w = leaf(x_vals), leaf(w_vals)
    b = leaf(b_vals) if with_bias else None
    y = LinearFunction.apply(x, w, b) if with_bias else LinearFunction.apply(x, w)
    y.backward(torch.tensor(g_vals))
    put("linear.%s.y" % name, y); put("linear.%s.x.grad" % name, x.grad); put("linear.%s.w.grad" % name, w.grad)
    if with_bias:
        put("linear.bias.b.grad", b.grad)

x = leaf([0.5, -1.0, 2.0])
y = MulConstant.apply(x, 5.5)
y.backward(torch.tensor([1.0, 2.0, 3.0]))
put("mul_constant.x", x); put("mul_constant.y", y); put("mul_constant.x.grad", x.grad)

# ---- 5. LibTorch spellings: reductions over one dimension, compound assignment, hooks ---
m_vals = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
m = leaf(m_vals)
put("spelling.m", m)
put("spelling.sum0", m.sum(0)); put("spelling.sum1_keepdim", m.sum(1, True)); put("spelling.mean1", m.mean(1))
put("spelling.ones_empty_dim", [float(torch.ones(()).dim())])
h = m * 1
h += 2
h *= m
h -= 1
h /= 4
hook_calls = []
handle = h.register_hook(lambda g: g * 3)
removed = h.register_hook(lambda g: hook_calls.append("removed"))
removed.remove()
h.sum().backward()
assert not hook_calls
put("spelling.compound.h", h); put("spelling.compound.m.grad", m.grad)
x = leaf([0.5, -1.2])
(g,) = torch.autograd.grad((x * x * x).sum(), x, create_graph=True)
g.sum().backward()
put("spelling.double_backward.g", g); put("spelling.double_backward.x.grad", x.grad)

m = leaf(m_vals)
w = torch.tensor([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]])
y = m.masked_fill(m > 0.4, 7.0)
(y * w).sum().backward()
put("spelling.masked_fill.y", y); put("spelling.masked_fill.m.grad", m.grad)
put("spelling.item", [torch.tensor([2.5]).item(), float(torch.tensor([3]).item())])

# ---- 6. var, std and norm over dimensions ----------------------------------------------
s_vals = [[0.5, -1.0, 2.0, 0.25], [1.5, 0.25, -0.75, 3.0], [-2.0, 1.0, 0.5, 0.0]]
put("stat.x", torch.tensor(s_vals))
statistics = [
    ("var_all", lambda t: t.var()), ("var_all_biased", lambda t: t.var(unbiased=False)),
    ("var_dim1", lambda t: t.var(1)), ("std_all", lambda t: t.std()),
    ("std_dim0_keep", lambda t: t.std(0, True, True)), ("std_dim1_biased", lambda t: t.std(1, False)),
    ("norm_p3_dim1", lambda t: t.norm(3, 1)), ("norm_p2_dim0_keep", lambda t: t.norm(2, 0, True)),
]
for name, f in statistics:
    t = leaf(s_vals)
    y = f(t)
    w = torch.arange(1, y.numel() + 1, dtype=torch.float32).reshape(y.shape)  # weights 1, 2, ...
    (y * w).sum().backward()
    put("stat.%s.y" % name, y); put("stat.%s.grad" % name, t.grad)
    cases["stat.%s.shape" % name] = [float(n) for n in y.shape]
t = leaf([[1.0, 1.0, 1.0], [0.5, 1.5, 2.5]])  # a constant row: std 0, gradient 0
t.std(1).sum().backward()
put("stat.std_constant.grad", t.grad)
cases["stat.var_one_element_isnan"] = [1.0 if torch.tensor([2.0]).var().isnan() else 0.0]

# ---- 7. indexing: index, index_put_, assignment through a temporary ---------------------
ix = leaf(s_vals)
parts = [("rows_step", ix[0::2]), ("col1", ix[:, 1]), ("none_mid", ix[1, None, 1:3]), ("ellipsis", ix[..., -1]),
         ("tensor_idx", ix[:, torch.tensor([3, 0, 3])]), ("tensor_2d", ix[torch.tensor([[2, 0], [1, 1]])]),
         ("bool_true", ix[True, 0])]
total = 0
for i, (name, v) in enumerate(parts):
    put("index.%s" % name, v)
    cases["index.%s.shape" % name] = [float(n) for n in v.shape]
    total = total + (v * (i + 1)).sum()
total.backward()
put("index.grad", ix.grad)
z = torch.zeros(3, 4)
z[1, 1:3] = 5.0
z[..., 0] = torch.tensor([1.0, 2.0, 3.0])
z[2][3] = 7.0
z[0] = torch.tensor([0.5, 0.25, 0.125, 0.0625])
put("index_put.z", z)
a = leaf([1.0, 2.0, 3.0, 4.0])
v = leaf([10.0, 20.0])
b = a * 2
b[1:3] = v * 3
b[0] = 9.0
(b * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
put("index_put.b", b); put("index_put.a.grad", a.grad); put("index_put.v.grad", v.grad)

# ---- 8. shallow copies: detach()/tensor_data() share the version counter, .data does not
x = leaf([1.0, 2.0])
y = x * 1
y.detach().add_(1)
cases["shallow.tensor_data.version"] = [float(y._version)]
y2 = x * 1
y2.data.add_(1)
cases["shallow.variable_data.version"] = [float(y2._version)]
put("shallow.variable_data.y2", y2)


# ---- 9. custom functions: mark_non_differentiable, materialize_grads, nesting, reentrance
class ScaleAndMask(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        mask = (x > 0).to(x.dtype)
        ctx.mark_non_differentiable(mask)
        ctx.save_for_backward(mask)
        return x * 2, mask

    @staticmethod
    def backward(ctx, g, g_mask):
        (mask,) = ctx.saved_tensors
        return g * 2 + mask


x = leaf([-1.0, 0.5, 2.0])
y, mask = ScaleAndMask.apply(x)
put_flags("custom.non_differentiable.requires_grad", [y.requires_grad, mask.requires_grad])
(y * y).sum().backward()
put("custom.non_differentiable.x.grad", x.grad)

received = []


class TwoOutputs(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, materialize):
        ctx.set_materialize_grads(materialize)
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        received.append([g1 is None, g2 is None])
        total = torch.zeros_like(g1 if g1 is not None else g2)
        if g1 is not None:
            total = total + g1 * 2
        if g2 is not None:
            total = total + g2 * 3
        return total, None


for flag in [True, False]:
    x = leaf([1.0, 2.0])
    received.clear()
    y1, y2 = TwoOutputs.apply(x, flag)
    y1.sum().backward()
    put_flags("custom.materialize_%s.undefined" % ("on" if flag else "off"), received[0])
    put("custom.materialize_%s.x.grad" % ("on" if flag else "off"), x.grad)


class Doubler(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        received.append([g is None])
        return g * 2 if g is not None else None


received.clear()
x = leaf([1.0, 2.0])
y = torch._C._functions.UndefinedGrad()(Doubler.apply(x))
y.sum().backward()
put_flags("custom.undefined_grad.received_undefined", received[0])
put_flags("custom.undefined_grad.x.grad_defined", [x.grad is not None])
if x.grad is not None:
    put("custom.undefined_grad.x.grad", x.grad)


class Inner(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.exp()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.exp()


class Outer(torch.autograd.Function):
    """Calls Inner inside its forward (not recorded: forward runs without grad mode)."""

    @staticmethod
    def forward(ctx, x):
        y = Inner.apply(x)
        ctx.save_for_backward(y)
        return y * 3

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * 3 * y


x = leaf([0.5, -1.0])
y = Outer.apply(x)
put_flags("custom.nested.inner_recorded", [y.grad_fn.next_functions[0][0] is not None and
                                           type(y.grad_fn.next_functions[0][0]).__name__ != "AccumulateGrad"])
(y * torch.tensor([1.0, 2.0])).sum().backward()
put("custom.nested.y", y); put("custom.nested.x.grad", x.grad)


class SinByGrad(torch.autograd.Function):
    """sin(x), whose backward finds cos(x) with a nested autograd.grad (a reentrant pass)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        with torch.enable_grad():
            xx = x.detach().requires_grad_()
            (d,) = torch.autograd.grad(xx.sin().sum(), xx)
        return g * d


x = leaf([0.5, -1.0, 2.0])
(SinByGrad.apply(x) * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
put("custom.reentrant.x.grad", x.grad)

# ---- 10. hooks: a tensor hook, a node post-hook, removal by position --------------------
x = leaf([1.0, 2.0])
y = x * x
y.register_hook(lambda g: g * 10)
y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (grad_inputs[0] + 1, grad_inputs[1]))
y.sum().backward()
put("hooks.x.grad", x.grad)


# ---- 11. anomaly mode -------------------------------------------------------------------
class NanGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, g):
        return g * float("nan")


x = leaf([1.0, 2.0])
with torch.autograd.detect_anomaly():
    try:
        NanGrad.apply(x).sum().backward()
        cases["anomaly.nan_raises"] = [0.0]
    except RuntimeError as e:
        assert "returned nan values in its 0th output" in str(e), e
        cases["anomaly.nan_raises"] = [1.0]
x = leaf([1.0, 2.0])
NanGrad.apply(x).sum().backward()  # outside anomaly mode the NaN goes through
cases["anomaly.off.x.grad_isnan"] = [1.0 if bool(x.grad.isnan().all()) else 0.0]

# ---- 12. retain_graph, a second backward, grad modes ------------------------------------
x = leaf([1.0, 2.0])
y = (x * x).sum()
y.backward(retain_graph=True)
y.backward()
put("retain.x.grad", x.grad)
x = leaf([1.0, 2.0])
y = (x * x).sum()
y.backward()
try:
    y.backward()
    cases["retain.second_throws"] = [0.0]
except RuntimeError as e:
    assert "Trying to backward through the graph a second time" in str(e), e
    cases["retain.second_throws"] = [1.0]
with torch.no_grad():
    a = x * 2
    with torch.enable_grad():
        b = x * 2
with torch.inference_mode():
    c = x * 2
put_flags("grad_mode.requires_grad", [a.requires_grad, b.requires_grad, c.requires_grad, c.is_inference()])

write_header(cases, "libtorch_data.hpp", "libtorch_reference", "generate_libtorch.py")
