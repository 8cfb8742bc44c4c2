#!/usr/bin/env bash
# Runs gradc's GradBench tool ($1) on every eval at small sizes, through GradBench's own
# runner, which validates every answer against GradBench's golden tool (tools/manual) or
# the eval's fixed answers. GRADBENCH_DIR is GradBench's folder (../shared/gradbench beside
# this repository); without it the test is skipped (exit 77, meson's "skipped").
set -euo pipefail
tool=$(realpath "$1")  # the runner runs it from its own folder
gradbench=${GRADBENCH_DIR:-}
if [[ -z "$gradbench" || ! -x "$gradbench/run" ]]; then
  echo "skipped: GradBench's evals are not here (GRADBENCH_DIR='$gradbench'); they come with ../shared/gradbench"
  exit 77
fi
export GRADBENCH_WORK=$(realpath -m "${GRADBENCH_WORK:-$(mktemp -d)}")

source "$(dirname "${BASH_SOURCE[0]}")/quick_sizes.sh"
evals=("${all_evals[@]}")
[[ $# -gt 1 ]] && evals=("${@:2}")

failed=()
for eval in "${evals[@]}"; do
  # GradBench's runner copies its folder to GRADBENCH_WORK on first use; the golden tool
  # of each eval is then built there once.
  [[ -d "$GRADBENCH_WORK/tools/manual" ]] || "$gradbench/run" hello --tool "$tool" >/dev/null
  if grep -qx "$eval" "$GRADBENCH_WORK/tools/manual/evals.txt"; then
    make -s -C "$GRADBENCH_WORK/tools/manual" "bin/$eval" >/dev/null
  fi
  echo "== $eval ${quick_sizes[$eval]}"
  # shellcheck disable=SC2086 # the sizes are several words
  "$gradbench/run" "$eval" --tool "$tool" --min-seconds 0 ${quick_sizes[$eval]} || failed+=("$eval")
  if [[ "$eval" == ht ]]; then
    "$gradbench/run" ht --tool "$tool" --min-seconds 0 --variant simple ${quick_sizes[ht]} || failed+=("ht simple")
  fi
  # An eval answered both ways by default answers with the faster (eval_registry.hpp);
  # the other variant is validated too.
  for mode in static dynamic; do
    variants="${mode}_variants[*]"
    if [[ " ${!variants} " == *" $eval "* ]]; then
      echo "== $eval ${quick_sizes[$eval]} (GRADC_GRADBENCH_MODE=$mode)"
      # shellcheck disable=SC2086
      GRADC_GRADBENCH_MODE=$mode "$gradbench/run" "$eval" --tool "$tool" --min-seconds 0 ${quick_sizes[$eval]} ||
        failed+=("$eval $mode")
    fi
  done
done
if (( ${#failed[@]} )); then
  echo "invalid or failed: ${failed[*]}"
  exit 1
fi
echo "all ${#evals[@]} evals valid"
