#!/bin/sh
# Flops per point that the compiled batch code of gradc and of the hand-written code
# executes, for the flop side of the roofline: gdb single-steps one call at N = 128 and
# at N = 256 points (bench/flops_executed.py counts its floating-point instructions,
# weighted by lanes) and the difference over 128 points is the per-point work, without
# the per-call work (map-reduce's loop invariants, a call's setup). Needs gdb and
# build-bench/bench/gradc-bench-one-call. Prints
# `kernel,implementation,flops_per_point,instructions_per_point`.
set -eu
cd "$(dirname "$0")/.."
one_call=build-bench/bench/gradc-bench-one-call
count() {  # kernel implementation n -> "flops instructions"
    LD_BIND_NOW=1 gdb -batch -nx -x bench/flops_executed.py --args "$one_call" "$1" "$2" "$3" 2>/dev/null |
        sed -n 's/^FLOPS //p'
}
echo "kernel,implementation,flops_per_point,instructions_per_point"
for kernel in seed normal_logpdf black_scholes mlp loglik; do
    for implementation in gradc-batch hand-simd; do
        small=$(count "$kernel" "$implementation" 128)
        large=$(count "$kernel" "$implementation" 256)
        echo "$small $large" | awk -v k="$kernel" -v i="$implementation" \
            '{ printf "%s,%s,%.4g,%.4g\n", k, i, ($3 - $1) / 128, ($4 - $2) / 128 }'
    done
done
