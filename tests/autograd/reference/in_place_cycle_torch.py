#!/usr/bin/env python3
"""Whether PyTorch keeps a tensor alive through the graph after an in-place operation on
a tensor that a backward node saved as an input (docs/reliability.md, "A reference cycle
through an in-place operation"). Run with Debian's python3-torch:

    /usr/bin/python3 tests/autograd/reference/in_place_cycle_torch.py

PyTorch 1.13 prints "without in-place: freed, with in-place: kept alive": log saves its
input d itself (the "Autograd mechanics" notes, "Saved tensors": x is y.grad_fn._saved_self),
d.add_(l) gives d a grad_fn whose edges reach LogBackward0, which holds d, and the cycle
runs through C++ references that Python's garbage collector cannot see.
"""
import gc
import weakref

import torch


def kept_alive(in_place: bool) -> bool:
    x = torch.ones(3, requires_grad=True)
    d = x * 2
    l = torch.log(d)
    if in_place:
        d.add_(l)
    alive = weakref.ref(d)
    del d, l
    gc.collect()
    return alive() is not None


def word(alive: bool) -> str:
    return "kept alive" if alive else "freed"


print(f"torch {torch.__version__}: without in-place: {word(kept_alive(False))}, "
      f"with in-place: {word(kept_alive(True))}")
