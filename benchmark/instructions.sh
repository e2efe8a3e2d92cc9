#!/usr/bin/env bash
# Instructions per __observeEncoded call (benchmark/instructions.mjs) under valgrind's callgrind,
# for this tree or the built checkout given as $1: independent of the load, unlike timings on a shared
# machine (V8's compilation and collections still move it by a few hundred from run to run).
# INSTRUCTIONS_CALLS=new counts calls that are each new, JavaScript walk included (instructions.mjs).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(realpath "${1:-.}")
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null node benchmark/instructions.mjs "$dir" "$1" 2>&1 |
    awk '/Collected/ { gsub(",", "", $4); print $4 }'
}
few=$(count 10000)
many=$(count 110000)
echo "$dir: $(( (many - few) / 100000 )) instructions per call"
