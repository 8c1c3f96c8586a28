#!/usr/bin/env bash
# The 16-core table of issue 26, prepared for a session that is lent a many-core machine
# (the device machines have no network: the packages of their own image are used; nothing
# is installed). About 5-6 minutes expected, at most 8 (the stages' time limits add up to
# 480 s); a stage that overruns still leaves the earlier ones' results:
#
#   0. the machine, the packages, and the compiled kernels loaded once (Numba's on-disk
#      cache is empty on a fresh machine: ~20 s of compilation, then every child reads it);
#   1. Gini at 1 2 4 8 16 threads (the goal: speed-up 1 -> 16 >= 8x);
#   2. where the 16-thread Gini fit spends its wall time (benchmarks/profile_pool.py);
#   3. HGB and LightGBM at 1 and 16 threads (the goal: Gini at 16 <= 0.5x HGB);
#   4. profit and the case rule at 1 and 16 threads;
#   5. profit and the case rule at 2 4 8 threads, if time is left (the peers at every
#      thread count are in the table of 27 November, docs/dev/kernels.rst).
#
# QUICK=1 (about 3.5 minutes, for a second run on a lent machine): stage 0; Gini at 1 and
# 16 threads in six processes, alternated (the one-thread time varied by a third between
# processes on 28 November); the passes of the 2- and 16-thread Gini and case-rule fits
# (each pass's CPU on two threads is about its one-thread CPU) with their replay on 16
# threads (--simulate), and the 16-thread Gini passes again with other task sizes
# (2b-tasks); the cost of a hand-off itself (2c-handoff, a few seconds); Gini, profit
# and the case rule at 1 and 16 threads, HGB at 16 (its one-thread fit takes 25 s there).
#
# 10,000,000 rows x 20 normal features, depth 10 (bench_cores.py's data, drawn once and
# kept in $DATA). Usage, from the repository root, with the results under $OUT:
#
#   OUT=/tmp/out bash benchmarks/device_cores.sh            # on the device machine
#   ROWS=200000 THREADS="1 2" bash benchmarks/device_cores.sh  # a quick rehearsal here
#
# Report every figure with the machine named (stage 0 prints it), and only figures it
# measured.
set -uo pipefail
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
OUT="${OUT:-/tmp/device_cores}"
DATA="${DATA:-/tmp/device_cores_data}"
ROWS="${ROWS:-10000000}"
THREADS="${THREADS:-1 2 4 8 16}"
MID="${MID:-2 4 8}"
mkdir -p "$OUT" "$DATA"
LOW="${THREADS%% *}"
HIGH="${THREADS##* }"
BENCH=(python benchmarks/bench_cores.py --rows "$ROWS" --cache "$DATA" --repeat 1)
start=$(date +%s)

stage() {  # stage NAME LIMIT_S COMMAND...: output to the terminal and to $OUT/NAME.txt
    local name=$1 limit=$2
    shift 2
    echo "=== $name ($(date -u +%H:%M:%S) UTC, $(($(date +%s) - start)) s in, limit ${limit} s)"
    timeout "$limit" "$@" 2>&1 | tee -a "$OUT/log.txt"
    local rc=${PIPESTATUS[0]}
    [ "$rc" -eq 0 ] || echo "=== $name ended with status $rc (124: its time limit)"
}

stage 0-machine 90 bash -c '
    nproc; lscpu | grep -E "Model name|^CPU\(s\)|Thread|Socket|NUMA node\(s\)"; uptime
    python -c "import numpy, pandas, sklearn, numba; print(\"numpy\", numpy.__version__,
\"pandas\", pandas.__version__, \"sklearn\", sklearn.__version__, \"numba\", numba.__version__)"
    python -c "import lightgbm; print(\"lightgbm\", lightgbm.__version__)" || true
    python - <<EOF
import time
import numpy as np, pandas as pd
from benchmarks.bench_cores import build, make_data
from dtdecide import config_context
t = time.perf_counter()
X, y, c = make_data(5000)
X, c = pd.DataFrame(X, columns=[f"x{j}" for j in range(20)]), pd.DataFrame({"cost": c})
with config_context(kernels="compiled"):
    for model in ("gini", "profit", "case"):
        for k in (1, 2, 3, 4):  # one, two ends, stretches of one buffer, row chunks
            fit, score = build(model, k, 10)
            score(fit(X, y, c), X, c)
print(f"kernels compiled or loaded in {time.perf_counter() - t:.1f} s")
EOF'
if [ "${QUICK:-0}" = 1 ]; then
    stage 1-alternate 150 "${BENCH[@]}" --threads "$LOW" "$HIGH" "$LOW" "$HIGH" "$LOW" "$HIGH" \
        --models gini --repeat 2 --json "$OUT/1-alternate.json"
    # --simulate: the passes' wall predicted from their groups' CPU on $HIGH threads
    # (spread alone); measured wall above it is waiting (hand-offs, stragglers)
    stage 2-profile 80 python benchmarks/profile_pool.py --rows "$ROWS" --cache "$DATA" \
        --threads 2 "$HIGH" --models gini case --simulate "$HIGH"
    # the same 16-thread Gini passes with the other choice of each task size: the
    # row-chunked histograms one feature a task (default: a run of features), the
    # binning by runs of columns and the partition in one range a thread (defaults:
    # single columns, two ranges a thread). Each pass depends on one of them: compare
    # each pass's wall and busy with 2-profile's
    stage 2b-tasks 45 python benchmarks/profile_pool.py --rows "$ROWS" --cache "$DATA" \
        --threads "$HIGH" --models gini --patch \
        dtdecide.tree._kernels._histogram:_TASK_FEATURES=1 \
        dtdecide.tree._kernels._binning:_TASKS_PER_THREAD=1 \
        dtdecide.tree._algorithms._rows:_RANGES_PER_THREAD=1
    # what a hand-off itself costs on $HIGH threads (spinning groups of known length):
    # the part of 2-profile's passes above the --simulate replay it explains
    stage 2c-handoff 30 python benchmarks/bench_handoff.py --threads 2 "$HIGH" \
        --groups "$HIGH" $((2 * HIGH)) $((5 * HIGH)) --work 100 1000 --steps 0 6
    stage 3-rules 100 "${BENCH[@]}" --threads "$LOW" "$HIGH" --models gini profit case \
        --json "$OUT/3-rules.json"
    stage 4-hgb 40 "${BENCH[@]}" --threads "$HIGH" --models hgb --json "$OUT/4-hgb.json"
else
    stage 1-gini 150 "${BENCH[@]}" --threads $THREADS --models gini --repeat 2 \
        --json "$OUT/1-gini.json"
    stage 2-profile 60 python benchmarks/profile_pool.py --rows "$ROWS" --cache "$DATA" \
        --threads "$LOW" "$HIGH" --simulate "$HIGH"
    stage 3-peers 120 "${BENCH[@]}" --threads "$LOW" "$HIGH" --models hgb lightgbm gini \
        --json "$OUT/3-peers.json"
    stage 4-profit-case 60 "${BENCH[@]}" --threads "$LOW" "$HIGH" --models profit case \
        --json "$OUT/4-profit-case.json"
    stage 5-middle 60 "${BENCH[@]}" --threads $MID --models profit case \
        --json "$OUT/5-middle.json"
fi
echo "=== done in $(($(date +%s) - start)) s; results in $OUT"
