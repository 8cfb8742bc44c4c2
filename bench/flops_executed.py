# gdb script (bench/flops_executed.sh runs it): single-steps measured_call of
# gradc-bench-one-call and counts the floating-point arithmetic it executes, by
# instruction: add, sub, mul, div, sqrt count one flop per lane, fused multiply-adds two;
# the lanes are those of the destination register (zmm 8 doubles, ymm 4, xmm 2; scalar
# sd 1). Compares, min/max, masks, rounding, conversions and exponent scaling are not
# flops. Prints `FLOPS flops instructions` for the call, then `MIX` and the instructions
# by kind (bench/flops_executed.sh --mix): floating-point arithmetic, vector loads and stores
# (a move with a memory operand), other vector work (moves between registers, compares,
# blends, masks, logic, conversions, shuffles), and the rest (integer, address and
# control instructions).
import re

import gdb

FLOP = re.compile(r"^v?(add|sub|mul|div|sqrt)(p|s)d$")
FMA = re.compile(r"^vf(n)?m(add|sub|addsub|subadd)(132|213|231)(p|s)d$")
LANES = {"zmm": 8, "ymm": 4, "xmm": 2}

gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("break *measured_call")
gdb.execute("run")
entry_sp = int(gdb.parse_and_eval("$sp"))
flops = 0
instructions = 0
mix = {"arithmetic": 0, "memory": 0, "vector_other": 0, "scalar_and_control": 0}
VECTOR_MOVE = re.compile(r"^v(p)?(mov|broadcast|extract|insert|gather|scatter|compress|expand)")
while True:
    text = gdb.execute("x/i $pc", to_string=True)
    body = text.split(":", 1)[1].strip() if ":" in text else ""
    parts = body.split(None, 1)
    mnemonic = parts[0] if parts else ""
    operands = parts[1] if len(parts) > 1 else ""
    weight = 2 if FMA.match(mnemonic) else 1 if FLOP.match(mnemonic) else 0
    if weight:
        if mnemonic.endswith("sd"):
            lanes = 1
        else:
            registers = re.findall(r"%([xyz]mm)\d+", operands)
            lanes = LANES[registers[-1]] if registers else 1
        flops += weight * lanes
        mix["arithmetic"] += 1
    elif VECTOR_MOVE.match(mnemonic) and "(" in operands:
        mix["memory"] += 1
    elif mnemonic.startswith(("v", "k")) or "mm" in operands:
        mix["vector_other"] += 1
    else:
        mix["scalar_and_control"] += 1
    instructions += 1
    gdb.execute("stepi", to_string=True)
    if int(gdb.parse_and_eval("$sp")) > entry_sp:
        break
print(f"FLOPS {flops} {instructions}")
print("MIX " + " ".join(str(mix[k]) for k in ("arithmetic", "memory", "vector_other", "scalar_and_control")))
gdb.execute("kill")
