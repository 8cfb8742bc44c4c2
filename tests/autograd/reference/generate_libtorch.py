#!/usr/bin/python3
"""Reference values for tests/autograd/test_libtorch_conformance.cpp, computed with PyTorch.

Run with Debian's python3-torch:  /usr/bin/python3 tests/autograd/reference/generate_libtorch.py
It writes libtorch_data.hpp next to this file (the format of reference_io.write_header).
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

torch.set_default_dtype(torch.float64)
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

write_header(cases, "libtorch_data.hpp", "libtorch_reference", "generate_libtorch.py")
