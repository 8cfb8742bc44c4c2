#!/bin/sh
# The instructions per point that the compiled batch code of gradc and of the hand-written
# code executes, by kind: floating-point arithmetic, vector loads and stores, other vector
# work (compares, blends, masks, logic, shuffles, register moves) and the rest (integer,
# address, control). As bench/flops_executed.sh: gdb single-steps one call at N = 128
# and N = 256 points and the difference over 128 points is the per-point count. Says
# where a kernel's extra instructions against the hand-written code are. Needs gdb and
# build-bench/bench/gradc-bench-one-call. Prints
# `kernel,implementation,arithmetic,memory,vector_other,scalar_and_control`.
set -eu
cd "$(dirname "$0")/.."
one_call=build-bench/bench/gradc-bench-one-call
mix() {  # kernel implementation n -> four counts
    LD_BIND_NOW=1 gdb -batch -nx -x bench/flops_executed.py --args "$one_call" "$1" "$2" "$3" 2>/dev/null |
        sed -n 's/^MIX //p'
}
echo "kernel,implementation,arithmetic,memory,vector_other,scalar_and_control"
for kernel in ${GRADC_MIX_KERNELS:-seed normal_logpdf black_scholes mlp loglik}; do
    for implementation in gradc-batch hand-simd; do
        small=$(mix "$kernel" "$implementation" 128)
        large=$(mix "$kernel" "$implementation" 256)
        echo "$small $large" | awk -v k="$kernel" -v i="$implementation" \
            '{ printf "%s,%s,%.4g,%.4g,%.4g,%.4g\n", k, i, ($5 - $1) / 128, ($6 - $2) / 128, ($7 - $3) / 128, ($8 - $4) / 128 }'
    done
done
