#!/usr/bin/env bash
# GradBench's evals with gradc and with each local peer tool, in one run on this machine:
#   bench/gradbench/run.sh [--quick] [--multithreaded] [--min-seconds S] [EVAL...]
# Each eval goes through GradBench's runner (GRADBENCH_DIR, default ../shared/gradbench
# beside this repository), once with gradc (bench/gradbench/tool) and once with each of
# GradBench's tools here that implements it (manual, adol-c, codipack), at GradBench's
# default sizes (ht: the complicated variant up to hand 11, as far as the data here goes)
# and timing options (each function repeated for at least 1 s; --min-seconds S for S);
# --quick takes the test's small sizes and 0.1 s a function.
# --multithreaded runs gradc's tool with GradBench's --multithreaded (oneTBB, every core);
# its logs are named gradc-mt. Every message is kept (EVAL.TOOL.jsonl) under
# build-bench/results/gradbench/ (GRADC_GRADBENCH_RESULTS), and bench/gradbench/report.py
# writes table.md, times.csv and the plots there.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
gradbench=${GRADBENCH_DIR:-$root/../shared/gradbench}
results=${GRADC_GRADBENCH_RESULTS:-$root/build-bench/results/gradbench}
source "$here/quick_sizes.sh"

quick=false
multithreaded=false
min_seconds=
evals=()
while (( $# )); do
  argument=$1
  shift
  case "$argument" in
    --quick) quick=true ;;
    --multithreaded) multithreaded=true ;;
    --min-seconds) min_seconds="--min-seconds $1"; shift ;;
    -*) echo "run.sh: unknown option $argument" >&2; exit 2 ;;
    *) evals+=("$argument") ;;
  esac
done
(( ${#evals[@]} )) || evals=("${all_evals[@]}")
if [[ ! -x "$gradbench/run" ]]; then
  echo "run.sh: GradBench's runner is not at $gradbench/run (set GRADBENCH_DIR)" >&2
  exit 1
fi
mkdir -p "$results"

options_for() {
  local eval=$1
  if $quick; then
    echo "${quick_sizes[$eval]} ${min_seconds:---min-seconds 0.1}"
  elif [[ "$eval" == ht ]]; then
    echo "--max 11 $min_seconds"
  else
    echo "$min_seconds"
  fi
}

status=0
for eval in "${evals[@]}"; do
  # The peers first: the hand-written one (manual) is also the eval's golden tool, which
  # GradBench's runner builds when it runs it.
  for peer in manual adol-c codipack; do
    grep -qx "$eval" "$gradbench/tools/$peer/evals.txt" 2>/dev/null || continue
    echo "== $eval: $peer"
    # shellcheck disable=SC2046 # the options are several words
    "$gradbench/run" "$eval" --peer "$peer" --log "$results/$eval.$peer.jsonl" $(options_for "$eval") ||
      echo "run.sh: $peer failed on $eval (its figures are left out where missing)"
  done
  echo "== $eval: gradc"
  # shellcheck disable=SC2046
  "$gradbench/run" "$eval" --tool "$here/tool" --log "$results/$eval.gradc.jsonl" $(options_for "$eval") || status=1
  if $multithreaded; then
    echo "== $eval: gradc, multithreaded"
    # shellcheck disable=SC2046
    "$gradbench/run" "$eval" --tool "$here/tool --multithreaded" --log "$results/$eval.gradc-mt.jsonl" \
      $(options_for "$eval") || status=1
  fi
done
/usr/bin/python3 "$here/report.py" "$results" "$gradbench/nightly-2026-03-14"
exit $status
