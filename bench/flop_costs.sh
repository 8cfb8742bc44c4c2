#!/bin/sh
# Flops per lane of each transcendental function in xsimd's double batch code
# (bench/transcendentals.cpp, compiled -O3 -march=native like the benchmark): the
# add/sub/mul/div/sqrt instructions count 1, fused multiply-adds 2, read from the
# assembly. Every branch is counted (sin/cos's range reductions, erfc's three ranges,
# tanh's two), so this is an upper bound on what one call executes. Prints
# `function,flops` lines.
set -eu
cd "$(dirname "$0")"
asm=$(mktemp)
trap 'rm -f "$asm"' EXIT
${CXX:-c++} -std=c++20 -O3 -march=native -DNDEBUG -S -o "$asm" transcendentals.cpp
awk '/^cost_[a-z]+:/ { f = substr($1, 6, length($1) - 6); order[++n] = f }
     f && /^\tv?f(n)?m(add|sub)[0-9]+p[sd]/ { flops[f] += 2 }
     f && /^\tv(add|sub|mul|div|sqrt)p[sd]/ { flops[f] += 1 }
     END { print "function,flops"; for (i = 1; i <= n; ++i) print order[i] "," flops[order[i]] }' "$asm"
