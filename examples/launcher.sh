#!/bin/bash
# SLURM batch script for ragmeter, like seed 000's `sbatch launcher.sh`.
# Usage: sbatch examples/launcher.sh path/to/config.yaml
#SBATCH --job-name=ragmeter
#SBATCH --output=ragmeter-%j.out
#SBATCH --error=ragmeter-%j.err
#SBATCH --cpus-per-task=8
#SBATCH --mem=16G
#SBATCH --time=04:00:00
## For a local GPU judge (vLLM or a GGUF built with CUDA), also request: #SBATCH --gres=gpu:1

set -euo pipefail
CONFIG="${1:?usage: sbatch launcher.sh CONFIG.yaml}"
PROJECT_DIR="${RAGMETER_PROJECT_DIR:-$SLURM_SUBMIT_DIR}"
cd "$PROJECT_DIR"

# Keep the judge cache on a disk that outlives the job, so a resubmitted job resumes where
# the last one stopped. sqlite locking on NFS is unreliable: give concurrent jobs their own file.
export RAGMETER_CACHE="${RAGMETER_CACHE:-$PROJECT_DIR/.ragmeter-cache/cache.sqlite}"
export HF_HUB_OFFLINE=1   # compute nodes usually have no internet: never reach for a hub

# Runs are resumable: if the job is killed or preempted, resubmit with the same cache.
srun .venv/bin/ragmeter run "$CONFIG"
