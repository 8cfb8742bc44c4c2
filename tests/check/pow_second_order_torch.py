#!/usr/bin/python3
"""Prints PyTorch's Hessian of pow(a, b) at the points where pow's first-derivative
conventions hold, for test_pow_second_order.cpp, which asserts where gradc departs from
it (NaN there in PyTorch 1.13) and where it agrees. Run with Debian's python3-torch:
    /usr/bin/python3 tests/check/pow_second_order_torch.py
Printed with torch 1.13.0:
    a=0.0 b=0.0: [[nan, nan], [nan, nan]]
    a=-0.0 b=0.0: [[nan, nan], [nan, nan]]
    a=0.0 b=-0.0: [[nan, nan], [nan, nan]]
    a=-0.0 b=-0.0: [[nan, nan], [nan, nan]]
    a=0.0 b=1.0: [[0.0, 1.0], [nan, nan]]
    a=0.0 b=2.0: [[2.0, 0.0], [nan, nan]]
    a=0.0 b=3.0: [[0.0, 0.0], [nan, nan]]
    a=0.5 b=0.0: [[-0.0, 0.0], [2.0, 0.4804530139182014]]
The last row's 0.0 is PyTorch forcing d/da to 0 wherever b = 0; the mixed derivative
there is 1/a = 2, which gradc gives in both orders."""
import torch
from torch.autograd.functional import hessian

print("torch", torch.__version__)
for a, b in [(0.0, 0.0), (-0.0, 0.0), (0.0, -0.0), (-0.0, -0.0), (0.0, 1.0), (0.0, 2.0), (0.0, 3.0), (0.5, 0.0)]:
    h = hessian(lambda x, y: torch.pow(x, y),
                (torch.tensor(a, dtype=torch.float64), torch.tensor(b, dtype=torch.float64)))
    print(f"a={a} b={b}: {[[float(h[i][j]) for j in range(2)] for i in range(2)]}")
