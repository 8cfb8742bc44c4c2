#!/usr/bin/env bash
# Compile time of large static-mode expressions: for each shape and size, generates a
# program (generate.py, which describes the shapes), compiles it at -O2 with g++ and
# clang++ (no other flags), runs it, and prints nodes → CPU seconds and peak memory (MB).
#   bash bench/compile_time/run.sh [sizes...]     (default: 250 500 1000 2000)
#   SHAPES="tree" bash bench/compile_time/run.sh 250 500   (one shape only)
#   CXXS="g++" bash bench/compile_time/run.sh 1000          (one compiler only)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
sizes=("$@")
((${#sizes[@]})) || sizes=(250 500 1000 2000)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '| shape | nodes | compiler | CPU s | peak MB | result |\n|---|---|---|---|---|---|\n'
for shape in ${SHAPES:-chain tree fold_left fold_right fold_right_plain horner mixed}; do
  for n in "${sizes[@]}"; do
    python3 "$here/generate.py" "$shape" "$n" > "$work/$shape$n.cpp"
    for cxx in ${CXXS:-g++ clang++}; do
      exe="$work/$shape$n-$cxx"
      if /usr/bin/time -f '%U %S %M' -o "$work/time" "$cxx" -std=c++20 -O2 -I"$root/include" \
           "$work/$shape$n.cpp" -o "$exe" 2> "$work/err"; then
        read -r user sys kb < "$work/time"
        out=$("$exe")
        nodes=$(awk '{print $2}' <<< "$out")
        printf '| %s | %s | %s | %.1f | %d | ok |\n' "$shape" "$nodes" "$cxx" "$(echo "$user + $sys" | bc)" $((kb / 1024))
      else
        read -r user sys kb < <(tail -1 "$work/time")
        printf '| %s | ~%s | %s | %.1f | %d | failed: %s |\n' "$shape" "$n" "$cxx" "$(echo "$user + $sys" | bc)" \
          $((kb / 1024)) "$(grep -m1 -o 'error: .*' "$work/err" | cut -c1-80)"
      fi
    done
  done
done
