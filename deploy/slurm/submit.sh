#!/bin/sh
# Submits a sharded `mend eval` to Slurm: an array of SHARDS tasks, then the report job that runs
# only if every shard succeeded. WAIT=1 returns when the report is written (sbatch --wait).
#
#   SUITE=evals/local/suite.toml OUT=/shared/eval-qwen SHARDS=4 deploy/slurm/submit.sh
#
# The suite must be checked first (`mend eval check SUITE`): every shard reads its check.
#
# Variables: SUITE, OUT (a folder every node sees), SHARDS (default 2), JOBS (attempts at once per
# shard, default 1), MEND (the binary, default `mend` on PATH), IMAGE_CACHE (each node's image
# cache, see eval-array.sbatch), WAIT. The jobs inherit this
# environment (MEND_PYTHON, OLLAMA_HOST, ...); extra sbatch flags go in SBATCH_FLAGS.
set -eu
: "${SUITE:?set SUITE to the suite.toml}" "${OUT:?set OUT to the results folder}"
here=$(cd "$(dirname "$0")" && pwd)
shards=${SHARDS:-2}
mkdir -p "$OUT"
array=$(sbatch --parsable ${SBATCH_FLAGS:-} --array="0-$((shards - 1))" \
    --output="$OUT/slurm-%A_%a.out" "$here/eval-array.sbatch")
array=${array%%;*}
wait_flag=
if [ "${WAIT:-0}" = 1 ]; then wait_flag=--wait; fi
sbatch --parsable ${SBATCH_FLAGS:-} $wait_flag --dependency="afterok:$array" --kill-on-invalid-dep=yes \
    --output="$OUT/slurm-report-%j.out" "$here/report.sbatch"
echo "mend eval: shards in job $array, report in $OUT/report.txt when they succeed" >&2
