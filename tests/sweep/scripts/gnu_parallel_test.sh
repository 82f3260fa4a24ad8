#!/usr/bin/env bash
# ctest sweep.gnu_parallel: tools/sweep/README.md's GNU parallel recipe, taken
# from that README itself with 8 shards replaced by 4, must give byte for byte the
# output of the same sweep unsharded.
# Usage: gnu_parallel_test.sh PATH/TO/perflab README. Exit 77 (skipped)
# without GNU parallel.
set -euo pipefail
perflab=$(realpath "$1") readme=$(realpath "$2")
if ! command -v parallel >/dev/null; then
  echo "skipped: GNU parallel is not installed (apt-get install parallel)"
  exit 77
fi
recipe=$(grep -m1 '^parallel perflab sweep .*--shard {}/8 .*::: \$(seq 8)$' "$readme") ||
  { echo "FAILED: no 'parallel perflab sweep ... --shard {}/8 ... ::: \$(seq 8)' line in $readme"; exit 1; }
merge=$(grep -m1 '^perflab sweep-merge part-\*.json$' "$readme") ||
  { echo "FAILED: no 'perflab sweep-merge part-*.json' line in $readme"; exit 1; }
sharded=${recipe//'{}/8'/'{}/4'}
sharded=${sharded//'$(seq 8)'/'$(seq 4)'}
# The same sweep without parallel and without the shard/out flags.
unsharded=${recipe#parallel }
unsharded=${unsharded%% --shard *}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export PATH="$(dirname "$perflab"):$PATH"
echo "+ $unsharded"; eval "$unsharded" > unsharded.txt
echo "+ $sharded"; eval "$sharded"
echo "+ $merge"; eval "$merge" > merged.txt
[ "$(ls part-*.json | wc -l)" = 4 ] || { echo "FAILED: expected 4 parts"; exit 1; }
if cmp unsharded.txt merged.txt; then
  echo "GNU parallel: 4 shards merged == unsharded ($(wc -c < merged.txt) bytes)"
else
  diff unsharded.txt merged.txt | head -20
  exit 1
fi
