#!/bin/sh
# Flops per point that the compiled batch code of gradc and of the hand-written code
# executes, for the flop side of the roofline: gdb single-steps one call at N = 128 and
# at N = 256 points (bench/flops_executed.py counts its floating-point instructions,
# weighted by lanes) and the difference over 128 points is the per-point work, without
# the per-call work (map-reduce's loop invariants, a call's setup). Needs gdb and
# build-bench/bench/gradc-bench-one-call. Prints
# `kernel,implementation,flops_per_point,instructions_per_point`; with `--mix`, the
# instructions per point by kind instead (flops_executed.py says which):
# `kernel,implementation,arithmetic,memory,vector_other,scalar_and_control`.
set -eu
cd "$(dirname "$0")/.."
one_call=build-bench/bench/gradc-bench-one-call
line=FLOPS
header="kernel,implementation,flops_per_point,instructions_per_point"
if [ "${1:-}" = "--mix" ]; then
    line=MIX
    header="kernel,implementation,arithmetic,memory,vector_other,scalar_and_control"
fi
count() {  # kernel implementation n -> the counts of the call
    LD_BIND_NOW=1 gdb -batch -nx -x bench/flops_executed.py --args "$one_call" "$1" "$2" "$3" 2>/dev/null |
        sed -n "s/^$line //p"
}
echo "$header"
for kernel in ${GRADC_FLOPS_KERNELS:-seed normal_logpdf black_scholes mlp loglik}; do
    for implementation in gradc-batch hand-simd; do
        small=$(count "$kernel" "$implementation" 128)
        large=$(count "$kernel" "$implementation" 256)
        # Per point: each count at 256 points minus the same count at 128, over 128.
        echo "$small $large" | awk -v k="$kernel" -v i="$implementation" '{
            half = NF / 2
            printf "%s,%s", k, i
            for (j = 1; j <= half; ++j) printf ",%.4g", ($(j + half) - $j) / 128
            printf "\n"
        }'
    done
done
