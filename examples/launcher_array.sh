#!/bin/bash
# Score one config as a SLURM job array of N shards (no Ray needed), then merge the shards in
# a job that starts when every array task has succeeded.
#   bash examples/launcher_array.sh path/to/config.yaml 8 results/merged
# Each task runs examples/launcher.sh with --shard I/N (rows whose id hashes to shard I) and
# its own cache; `ragmeter merge` recomputes means and intervals from the joined rows.
set -euo pipefail
CONFIG="${1:?usage: launcher_array.sh CONFIG.yaml [SHARDS] [OUT]}"
SHARDS="${2:-8}"
OUT="${3:-results/merged}"
HERE="$(cd "$(dirname "$0")" && pwd)"
RAGMETER="${RAGMETER_BIN:-$(command -v ragmeter || echo "$PWD/.venv/bin/ragmeter")}"

ARRAY=$(sbatch --parsable --array=0-$((SHARDS - 1)) \
    --export=ALL,RAGMETER_SHARDS="$SHARDS",RAGMETER_SHARD_OUT="$OUT-shards" "$HERE/launcher.sh" "$CONFIG")
sbatch --dependency=afterok:"$ARRAY" --job-name=ragmeter-merge --output=ragmeter-merge-%j.out \
    --wrap "\"$RAGMETER\" merge $OUT-shards/shard-* --out \"$OUT\""
echo "submitted array $ARRAY ($SHARDS shards) and its merge into $OUT"
