#!/bin/bash
# Run ragmeter as a SLURM batch job, or as plain bash on any machine (the same script).
#   sbatch examples/launcher.sh path/to/config.yaml
#   bash   examples/launcher.sh path/to/config.yaml
# As one task of a job array (examples/launcher_array.sh submits it): with RAGMETER_SHARDS=N
# set, array task I scores shard I/N into $RAGMETER_SHARD_OUT/shard-I, with its own cache.
#SBATCH --job-name=ragmeter
#SBATCH --output=ragmeter-%j.out
#SBATCH --error=ragmeter-%j.err
#SBATCH --cpus-per-task=8
#SBATCH --mem=16G
#SBATCH --time=04:00:00
#SBATCH --signal=B:TERM@120
## For a local GPU judge (vLLM or a GGUF built with CUDA), also request: #SBATCH --gres=gpu:1

set -euo pipefail
CONFIG="${1:?usage: sbatch launcher.sh CONFIG.yaml (or: bash launcher.sh CONFIG.yaml)}"
PROJECT_DIR="${RAGMETER_PROJECT_DIR:-${SLURM_SUBMIT_DIR:-$PWD}}"
cd "$PROJECT_DIR"

# ragmeter from PATH (an activated environment, a module), else this checkout's .venv.
RAGMETER="${RAGMETER_BIN:-$(command -v ragmeter || echo "$PROJECT_DIR/.venv/bin/ragmeter")}"

# The judge cache lives on the shared disk between jobs (so a resubmitted job resumes), one
# file per config (so two jobs never share one), and is worked on from node-local disk:
# sqlite's locking is unreliable on NFS. It is copied back when the job ends, also when it
# is preempted or cancelled (SLURM sends TERM first, see --signal above).
EXTRA=()
NAME="$(basename "${CONFIG%.*}")"
if [ -n "${RAGMETER_SHARDS:-}" ]; then
    TASK="${SLURM_ARRAY_TASK_ID:?RAGMETER_SHARDS is set but this is not an array task}"
    EXTRA=(--shard "$TASK/$RAGMETER_SHARDS" --out "${RAGMETER_SHARD_OUT:-results-shards}/shard-$TASK")
    NAME="$NAME-shard$TASK"   # one cache per shard: array tasks never write the same file
fi
PERSISTENT="${RAGMETER_CACHE_DIR:-$PROJECT_DIR/.ragmeter-cache}/$NAME.sqlite"
LOCAL_DIR="$(mktemp -d "${SLURM_TMPDIR:-${TMPDIR:-/tmp}}/ragmeter.XXXXXX")"
export RAGMETER_CACHE="$LOCAL_DIR/cache.sqlite"
mkdir -p "$(dirname "$PERSISTENT")"
if [ -f "$PERSISTENT" ]; then cp "$PERSISTENT" "$RAGMETER_CACHE"; fi

save_cache() {
    if [ -f "$RAGMETER_CACHE" ]; then
        # a checkpoint folds the write-ahead log in, then copy and rename: never a half-written cache
        python3 -c "import sqlite3,sys; sqlite3.connect(sys.argv[1]).execute('PRAGMA wal_checkpoint(TRUNCATE)')" \
            "$RAGMETER_CACHE" 2>/dev/null || true
        cp "$RAGMETER_CACHE" "$PERSISTENT.tmp.$$" && mv "$PERSISTENT.tmp.$$" "$PERSISTENT"
    fi
    rm -rf "$LOCAL_DIR"
}
trap save_cache EXIT

export HF_HUB_OFFLINE=1   # compute nodes usually have no internet: never reach for a hub

if [ -n "${SLURM_JOB_ID:-}" ]; then
    srun "$RAGMETER" run "$CONFIG" "${EXTRA[@]}" &
else
    "$RAGMETER" run "$CONFIG" "${EXTRA[@]}" &
fi
CHILD=$!
# preempted or cancelled: stop ragmeter (every finished reply is already committed to the cache)
trap 'kill -TERM "$CHILD" 2>/dev/null; wait "$CHILD"; exit 143' TERM
wait "$CHILD"
