#!/usr/bin/env bash
# Compile time of array kernels against their sizes: a layer sum(tanh(W x + b)) with W an
# N×N matrix (value, gradient and a batch gradient instantiated), for N = 4, 64, 256, and
# the ADBench GMM example (d = 10, K = 5: three kernels and the dynamic-mode referee).
# Prints N → CPU seconds and peak memory (MB) for g++ and clang++ at -O2 -march=native.
#   bash bench/compile_time/arrays.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
measure() {  # name file
  for cxx in g++ clang++; do
    /usr/bin/time -f '%U %S %M' -o "$work/time" "$cxx" -std=c++20 -O2 -march=native -I"$root/include" -c "$2" \
      -o "$work/out.o"
    read -r user sys kb < "$work/time"
    printf '| %s | %s | %.1f | %d |\n' "$1" "$cxx" "$(echo "$user + $sys" | bc)" $((kb / 1024))
  done
}
printf '| kernel | compiler | CPU s | peak MB |\n|---|---|---|---|\n'
for n in 4 64 256; do
  cat > "$work/layer$n.cpp" <<CPP
#include <gradc/gradc.hpp>
#include <array>
#include <vector>
auto [W, b, x] = gradc::variables(gradc::mat<$n, $n>, gradc::vec<$n>, gradc::vec<$n>);
const auto k = gradc::compile(sum(tanh(W * x + b)), gradc::wrt(W, b));
double run(const std::array<double, $n * $n>& w, const std::array<double, $n>& bv, const std::array<double, $n>& xv,
           const std::vector<std::vector<double>>& xs) {
  const auto r = k.gradient(w, bv, xv);
  const auto m = k.map_reduce(xs, w, bv);
  return r.value + m.value + std::get<1>(r.gradient)[0] + std::get<1>(m.gradient)[0];
}
CPP
  measure "layer mat<$n, $n>" "$work/layer$n.cpp"
done
measure "examples/gmm.cpp (d = 10, K = 5)" "$root/examples/gmm.cpp"
