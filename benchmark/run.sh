#!/usr/bin/env bash
# npm run bench: speed against the reference (bench.mjs; traffic.mjs on the shared trajectories'
# calls), per-agent memory (memory.mjs), the
# opt-in features against the default path (features.mjs) and the WASI build against native and
# reference (wasi.mjs), the hook command per event beside a bare Node start (hook.mjs), on the machine's Node and on Nodes 22,
# 24 and 26 from node_modules (the node22, node24 and node26 devDependencies; one not installed,
# as off linux-x64, is skipped). npm_node_execpath is the Node that runs npm; `node` inside npm
# scripts is node_modules/.bin/node, one of the pinned Nodes, so each is named here.
# BASELINE_DIR: a built checkout of another revision (for example one without the opt-in
# features) whose default path features.mjs runs alongside; BASELINE_LABEL names it.
set -euo pipefail
cd "$(dirname "$0")/.."
for node in "${npm_node_execpath:-$(command -v node)}" node_modules/node{22,24,26}/bin/node; do
  [ -x "$node" ] || continue
  "$node" --expose-gc benchmark/bench.mjs
  "$node" --expose-gc benchmark/traffic.mjs
  "$node" benchmark/memory.mjs
  "$node" --expose-gc benchmark/features.mjs
  # The WASI build against native and reference (wasi.mjs; skipped, with one line, without the
  # WASI build in npm/wasm32-wasi/).
  "$node" --expose-gc benchmark/wasi.mjs
  # The hook command per event (a process per event) beside a bare Node start.
  "$node" benchmark/hook.mjs
done
