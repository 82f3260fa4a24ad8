#!/usr/bin/env bash
# ctest sweep.gnu_parallel: the README's GNU parallel recipe, verbatim with
# N = 4, must give byte for byte the output of the unsharded sweep.
# Usage: gnu_parallel_test.sh PATH/TO/perflab. Exit 77 (skipped) without parallel.
set -euo pipefail
perflab=$1
if ! command -v parallel >/dev/null; then
  echo "skipped: GNU parallel is not installed (apt-get install parallel)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export PATH="$(dirname "$perflab"):$PATH"
args=(mmc --set servers=1,2 --set arrival_rate_per_s=0.5,0.9 --set customers=2000 --replications 5)

perflab sweep "${args[@]}" > unsharded.txt
# The README's recipe, with 8 replaced by 4:
parallel perflab sweep "${args[@]}" --shard {}/4 --out part-{}.json ::: $(seq 4)
perflab sweep-merge part-*.json > merged.txt

ls part-*.json | wc -l | grep -qx 4
if cmp unsharded.txt merged.txt; then
  echo "GNU parallel: 4 shards merged == unsharded ($(wc -c < merged.txt) bytes)"
else
  diff unsharded.txt merged.txt | head -20
  exit 1
fi
