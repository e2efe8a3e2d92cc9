#!/usr/bin/env bash
# Instructions per call under valgrind's callgrind (benchmark/instructions.mjs), for this tree or the
# built checkout given as the last argument: independent of the load, unlike timings on a shared
# machine. V8 runs with --predictable --single-threaded (no compiler or collector threads, a fixed
# hash seed), so that the same build counts the same each time.
#   instructions.sh [dir]            the native hot path per ~100 B call (INSTRUCTIONS_CALLS=new: each
#                                    call new, the JavaScript walk included)
#   instructions.sh --budget [dir]   a new ~100 B call's instructions stage by stage, and the reference's;
#                                    both listeners again after ~10 KB calls, as bench.mjs calls them
# INSTRUCTIONS_NODE picks the Node (default: node on the PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
budget=false
if [ "${1:-}" = --budget ]; then
  budget=true
  shift
fi
dir=$(realpath "${1:-.}")
node=${INSTRUCTIONS_NODE:-node}
# Instructions per call of a stage: the difference between two runs, divided by their difference in calls.
per_call() {
  count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$node" --predictable --single-threaded \
      benchmark/instructions.mjs "$dir" "$1" ${2:+"$2"} 2>&1 | awk '/Collected/ { gsub(",", "", $4); print $4 }'
  }
  local few many
  few=$(count 100000 "${1:-}")
  many=$(count 300000 "${1:-}")
  echo $(( (many - few) / 200000 ))
}
if ! $budget; then
  echo "$dir: $(per_call) instructions per call"
  exit
fi
declare -A n
for stage in floor read walk observe listener reference listener-mixed reference-mixed; do n[$stage]=$(per_call "$stage"); done
echo "$("$node" --version), $dir: instructions per new ~100 B call"
echo "| stage | instructions |"
echo "| --- | ---: |"
echo "| the floor (a listener that only calls next()) | ${n[floor]} |"
echo "| the walk (lib/encode.js) | ${n[walk]} |"
echo "| of which reading the value (a bare walk that writes nothing) | ${n[read]} |"
echo "| the native call | $(( n[observe] - n[walk] )) |"
echo "| the plugin around them | $(( n[listener] - n[observe] - n[floor] )) |"
echo "| through the listener, in all | ${n[listener]} |"
echo "| the reference's listener | ${n[reference]} |"
awk -v r="${n[reference]}" -v l="${n[listener]}" -v f="${n[floor]}" \
  'BEGIN { printf "\nreference ÷ native: %.2f× through the listener, %.2f× beyond the floor\n", r / l, (r - f) / (l - f) }'
awk -v r="${n[reference-mixed]}" -v l="${n[listener-mixed]}" \
  'BEGIN { printf "after 2,000 new ~10 KB calls (bench.mjs'"'"'s order): the listener %d, the reference %d, %.2f×\n", l, r, r / l }'
