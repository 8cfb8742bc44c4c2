# Small sizes of every GradBench eval, for the test and for `run.sh --quick`: the smallest
# of each eval's defaults, or below them where even those take seconds (the hand-tracking
# model "small", two frames). Sourced by test_evals.sh and run.sh.
declare -A quick_sizes=(
  [hello]=""
  [lse]="-n 2500 5000"
  [llsq]="-n 16 1024 -m 16 128"
  [ode]="-n 1000 -s 1 10"
  [kmeans]="-k 10 100 -n 1000 -d 8"
  [det]="-l 5 6 7"
  [gmm]="-d 2 10 -k 5 10 -n 1000"
  [ba]="--min 1 --max 2"
  [lstm]="-l 2 -c 1024"
  [ht]="--min 1 --max 2 --model small"
  [particle]=""
  [saddle]=""
)
all_evals=(hello lse llsq ode kmeans det gmm ba lstm ht particle saddle)
# Evals answered by the dynamic mode by default that also have a static variant
# (GRADC_GRADBENCH_MODE=static; bench/gradbench/eval_registry.hpp).
static_variants=(lse ode kmeans)
# Evals answered by the static mode by default that also have a dynamic variant
# (GRADC_GRADBENCH_MODE=dynamic).
dynamic_variants=(lstm)
