#!/usr/bin/env bash
# ctest models.hdr_js_interop: our HdrHistogram V2 encoding against
# HdrHistogramJS (npm hdr-histogram-js under Debian's nodejs), both ways.
# Usage: hdr_interop_test.sh PATH/TO/hdr_interop NPM_DIR
# Skips (exit 77) only where node is absent; the npm package is installed
# into NPM_DIR (under the build tree) on first use.
set -euo pipefail
tool=$1 npm_dir=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if ! command -v node >/dev/null; then
  echo "skipped: node is not installed (apt-get install nodejs npm)"
  exit 77
fi
if [ ! -d "$npm_dir/node_modules/hdr-histogram-js" ]; then
  mkdir -p "$npm_dir"
  if ! (cd "$npm_dir" && npm install --no-audit --no-fund --silent hdr-histogram-js@3 >&2); then
    echo "FAILED: cannot install the npm package hdr-histogram-js into $npm_dir (registry unreachable?)"
    exit 1
  fi
fi
export NODE_PATH="$npm_dir/node_modules"
ours=$("$tool" encode)
node "$here/hdr_interop.js" check "$ours"
theirs=$(node "$here/hdr_interop.js" encode)
"$tool" check "$theirs"
