#!/usr/bin/env bash
# Every test: cargo test (the core), a short cargo-fuzz run of each fuzz/ target, the addon suites
# (__test__/*.spec.mjs) on the Node that runs npm (the host's, >= 20) and on Node 26, the harness
# suites (__test__/harness/*.spec.mjs; the real harness needs Node >= 22.19) on Node 22 and on Node 26,
# the install test (the packed packages in a fresh harness project) on the host's Node with Node 22
# for the harness, the same on the WebAssembly (WASI) build, and a check that the committed
# generated files match the build. Nodes 22 and 26 are the node22 and node26 devDependencies in
# node_modules. Each stage starts with a "==" line (with the Node's version for the ava suites) and
# ends with one giving its time in seconds; the last line is "N passed, N failed". A fuzz step that
# prints "skip: fuzz" counts as neither.
# The WASI stages: the WASI binary is built (scripts/build-all.sh wasm32-wasip1-threads, a stage
#   counted like the others) and its loader put in the package root, where the generated loader
#   looks for it; then, with NAPI_RS_FORCE_WASI=1, the addon suites on the host's Node, the harness
#   suites on TEST_HARNESS_NODE, and the packed root and WASI packages in a fresh harness project
#   without a native package (__test__/wasi/).
# TEST_HARNESS_NODE: the Node for the harness suites' first run and the install tests' agent turns
#   (default: node_modules' Node 22), or "skip" to leave those out (CI's Node 20 job).
# TEST_EXTRA_NODE: the further Node that the addon and harness suites also run on, >= 22.19
#   (default: node_modules' Node 26), or "skip" (CI's jobs each test only the Node they set up).
# TEST_WASI=skip leaves the WASI stages out.
# The soak stage (after the native suites; not in the WASI-only run) runs soak/soak.mjs on the
#   harness Node with SOAK_ROUNDS=14 (a fixed amount of work) and SOAK_AGENTS=10 unless they are
#   set; SOAK_S bounds it by seconds instead.
# NAPI_RS_FORCE_WASI=1 (`npm run test:wasi`; also true or error): the WASI stages only, with the
#   addon and harness suites on TEST_EXTRA_NODE too; cargo test, fuzzing and the native suites are
#   left out.
set -uo pipefail
cd "$(dirname "$0")/.."

# npm_node_execpath is the Node that runs npm; inside npm scripts `node` is node_modules/.bin/node,
# one of the pinned Nodes, so every Node is named here.
NODE_HOST="${npm_node_execpath:-$(command -v node)}"
NODE_HARNESS="${TEST_HARNESS_NODE:-$PWD/node_modules/node22/bin/node}"
NODE_EXTRA="${TEST_EXTRA_NODE:-$PWD/node_modules/node26/bin/node}"
log=$(mktemp -d)
passed=0
failed=0
started_all=$SECONDS
stage_name=
stage_started=0
stage_times=()

# stage TITLE starts a stage, stage_done ends it with a line giving its time.
stage() {
  stage_done
  stage_name=$1
  stage_started=$SECONDS
  echo "== $stage_name"
}
stage_done() {
  [ -n "$stage_name" ] || return 0
  local took=$((SECONDS - stage_started))
  echo "== $stage_name: ${took} s"
  stage_times+=("$(printf '%6d s  %s' "$took" "$stage_name")")
  stage_name=
}

WASI_ONLY=
case ${NAPI_RS_FORCE_WASI:-} in 1 | true | error) WASI_ONLY=1 ;; esac
skipped=0

# The background lane: the short fuzz run (one core) and then the WASI build run beside the first
# stages, each into a log that its stage prints when the run reaches it (fuzz_stage, wasi_stages).
# "$log/NAME.done" holds its exit status once it has ended.
lane() {
  local name=$1; shift
  "$@" >"$log/$name" 2>&1
  echo $? >"$log/$name.done"
}
# collect NAME: waits for a lane step to end and prints its log; sets $lane_status.
collect() {
  local since=$SECONDS
  while [ ! -e "$log/$1.done" ]; do
    if ! kill -0 "$lane_pid" 2>/dev/null && [ ! -e "$log/$1.done" ]; then echo 99 >"$log/$1.done"; break; fi
    sleep 1
  done
  cat "$log/$1"
  lane_status=$(cat "$log/$1.done")
  echo "(ran in the background; waited $((SECONDS - since)) s for it here)"
}
WASI_LANE=
[ -z "$WASI_ONLY" ] && [ "${TEST_WASI:-}" != skip ] && WASI_LANE=1
if [ -z "$WASI_ONLY" ]; then
  (
    lane fuzz bash scripts/fuzz.sh "${FUZZ_SECONDS:-25}"
    [ -z "$WASI_LANE" ] || lane wasi-build bash scripts/build-all.sh wasm32-wasip1-threads
  ) &
  lane_pid=$!
fi

if [ -z "$WASI_ONLY" ]; then
# cargo test prints "test result: ok. N passed; M failed; ..." per test binary.
stage "cargo test (core; compiles the tests first)"
cargo test --workspace --quiet 2>&1 | tee "$log/cargo"
cargo_status=${PIPESTATUS[0]}
read -r p f < <(awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i) ~ /^passed/) p += $(i-1); if ($(i) ~ /^failed/) f += $(i-1) } } END { print p + 0, f + 0 }' "$log/cargo")
passed=$((passed + p)); failed=$((failed + f))
if [ "$cargo_status" -ne 0 ] && [ "$f" -eq 0 ]; then failed=$((failed + 1)); fi
stage_done
fi

# A short fuzz run (FUZZ_SECONDS per target, 25 by default: 50 s in all, plus the first build), in
# the background lane: one "ok: fuzz" or "not ok: fuzz" line per target, or one "skip: fuzz" line
# saying what to install (the nightly toolchain or cargo-fuzz; .ci/run installs both), which counts
# as neither.
fuzz_stage() {
  stage "cargo fuzz (short run, ${FUZZ_SECONDS:-25} s per target)"
  collect fuzz
  local p f
  p=$(grep -cE '^ok: fuzz' "$log/fuzz")
  f=$(grep -cE '^not ok: fuzz' "$log/fuzz")
  skipped=$(grep -cE '^skip: fuzz' "$log/fuzz")
  passed=$((passed + p)); failed=$((failed + f))
  # Any other exit, or an exit without its line, is a failure of the step itself.
  case $lane_status in
    0) [ "$p" -gt 0 ] || failed=$((failed + 1)) ;;
    1) [ "$f" -gt 0 ] || failed=$((failed + 1)) ;;
    2) [ "$skipped" -gt 0 ] || failed=$((failed + 1)) ;;
    *) echo "not ok: fuzz ended with status $lane_status"; failed=$((failed + 1)) ;;
  esac
  stage_done
}

# ava (through scripts/ava.mjs, which keeps its TAP reporter from dying on a timeout or a
# process.exit() and names the test file of any other reporter error) prints "ok N - title" /
# "not ok N - title" per test; a skipped or todo test is "ok N - title # SKIP" / "# TODO" and counts
# as neither. The stream ends with a plan line "1..N" and "# fail N". A stage is also failed when that
# plan line is missing (the runner or its reporter died: the files that reported no test are named),
# when ava counted more failures than it named, or when ava exited non-zero without naming one.
runs=0
run_ava() {
  local name=$1 node=$2; shift 2
  local file
  runs=$((runs + 1))
  file="$log/ava-$runs"
  stage "ava: $name on Node $("$node" --version)"
  "$node" scripts/ava.mjs --tap --timeout=10m "$@" 2>&1 | tee "$file"
  local status=${PIPESTATUS[0]}
  local p f counted spec silent=()
  p=$(grep -E '^ok [0-9]+' "$file" | grep -cvE '# (SKIP|TODO)')
  f=$(grep -cE '^not ok [0-9]+' "$file")
  counted=$(awk '/^# fail [0-9]+$/ { n = $3 } END { print n + 0 }' "$file")
  passed=$((passed + p)); failed=$((failed + f))
  if ! grep -qE '^1\.\.[0-9]+$' "$file"; then
    # ava prefixes titles with the file's name (without .spec.mjs) when it runs several files.
    for spec in "$@"; do
      case $spec in -*) continue ;; esac
      grep -qE "^(not )?ok [0-9]+ - $(basename "$spec" .spec.mjs) › " "$file" || silent+=("$spec")
    done
    echo "not ok: $stage_name: ava ended (status $status) before its summary: its runner or reporter died; files that reported no test: ${silent[*]:-none}"
    failed=$((failed + 1))
  elif [ "$counted" -gt "$f" ]; then
    echo "not ok: $stage_name: ava counted $counted failures and named $f (see its output above)"
    failed=$((failed + counted - f))
  elif [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "not ok: $stage_name: ava exited with status $status without naming a failure"
    failed=$((failed + 1))
  fi
  stage_done
}
# missing WHAT NODE VARIABLE: a Node that is not there is a failure (the node22 and node26
# devDependencies install only on linux-x64; VARIABLE can name another Node, or skip).
missing() {
  echo "== not ok: $1 needs $2, which is not there (the node22 and node26 devDependencies install only on linux-x64; set $3 to a Node, or to skip)"
  failed=$((failed + 1))
}

# The Nodes: a Node that is not there is a failure once, and then left out.
if [ "$NODE_EXTRA" != skip ] && [ ! -x "$NODE_EXTRA" ]; then
  missing "the addon and harness suites' second run" "$NODE_EXTRA" TEST_EXTRA_NODE
  NODE_EXTRA=skip
fi
if [ "$NODE_HARNESS" != skip ] && [ ! -x "$NODE_HARNESS" ]; then
  missing "the harness suites" "$NODE_HARNESS" TEST_HARNESS_NODE
  NODE_HARNESS=skip
fi

# Which suites run where (docs/TESTING.md says why). Every suite runs on the native build on the
# Node that runs npm (the addon suites) or the harness Node (the harness suites). The further Node
# repeats the suites whose code depends on the Node it runs on, and the WASI build the suites that
# go through the binding; these lists name the suites each leaves out.
# - build, robustness-heavy: the build and pack scripts use no binding; the heavy cases check bounds
#   of the Rust core that are the same code on every build and Node.
# - missing-binary, replay-loading, replay: the loader's messages and the replay command's reading,
#   JavaScript that loads no other build (the WASI loader's own part is wasi.spec and the WASI install).
# - demo, cordis-yml, replay*: the demo script, the loader reading a cordis.yml, and the replay
#   command with its report, which the browser renders (replay-html).
NOT_ON_EXTRA_NODE=(build robustness-heavy)
NOT_ON_EXTRA_NODE_HARNESS=(demo replay-html)
NOT_ON_WASI=(build robustness-heavy missing-binary replay-loading replay)
NOT_ON_WASI_HARNESS=(demo cordis-yml replay replay-cli replay-html)

# specs DIR NAME...: the spec files in DIR but those named (without .spec.mjs).
specs() {
  local dir=$1 spec; shift
  for spec in "$dir"/*.spec.mjs; do
    case " $* " in *" $(basename "$spec" .spec.mjs) "*) ;; *) echo "$spec" ;; esac
  done
}

# suites LABEL EXTRA INSTALL_GLOB: the addon suites on the host's Node (and on the further Node
# when EXTRA is "extra"), the harness suites on the harness Node (likewise), the install suites.
# LABEL " (WASI)" selects the WASI lists.
suites() {
  local label=$1 extra=$2 install=$3 addon harness
  if [ -n "$label" ]; then
    mapfile -t addon < <(specs __test__ "${NOT_ON_WASI[@]}")
    mapfile -t harness < <(specs __test__/harness "${NOT_ON_WASI_HARNESS[@]}")
  else
    mapfile -t addon < <(specs __test__)
    mapfile -t harness < <(specs __test__/harness)
  fi
  run_ava "addon$label" "$NODE_HOST" "${addon[@]}"
  if [ "$extra" = extra ] && [ "$NODE_EXTRA" != skip ]; then
    [ -n "$label" ] || mapfile -t addon < <(specs __test__ "${NOT_ON_EXTRA_NODE[@]}")
    run_ava "addon$label" "$NODE_EXTRA" "${addon[@]}"
  elif [ "$extra" = extra ]; then
    echo "== addon and harness suites$label on a further Node skipped (TEST_EXTRA_NODE=skip)"
  fi
  if [ "$NODE_HARNESS" = skip ]; then
    echo "== harness suites$label skipped (TEST_HARNESS_NODE=skip): they need Node >= 22.19"
  else
    run_ava "harness$label" "$NODE_HARNESS" "${harness[@]}"
  fi
  if [ "$extra" = extra ] && [ "$NODE_EXTRA" != skip ]; then
    [ -n "$label" ] || mapfile -t harness < <(specs __test__/harness "${NOT_ON_EXTRA_NODE_HARNESS[@]}")
    run_ava "harness$label" "$NODE_EXTRA" "${harness[@]}"
  fi
  TEST_HARNESS_NODE="$NODE_HARNESS" run_ava "install$label" "$NODE_HOST" $install
}

# The WASI stages; EXTRA as for suites.
wasi_stages() {
  stage "build the WASI binary (scripts/build-all.sh wasm32-wasip1-threads)"
  if [ -n "$WASI_LANE" ]; then
    collect wasi-build
  else
    bash scripts/build-all.sh wasm32-wasip1-threads
    lane_status=$?
  fi
  if [ "$lane_status" -eq 0 ]; then
    # Where a checkout's loader finds the WASI build: beside binding.cjs.
    cp npm/wasm32-wasi/repeat-tool-guard.wasi.cjs npm/wasm32-wasi/repeat-tool-guard.wasm32-wasi.wasm npm/wasm32-wasi/wasi-worker.mjs .
    echo "ok: the WASI binary is built and checked"
    passed=$((passed + 1))
  else
    echo "not ok: the WASI binary did not build or failed its check"
    failed=$((failed + 1))
  fi
  stage_done
  # `npm run test:wasi` keeps the value it was given (1, true or error).
  [ -n "$WASI_ONLY" ] || export NAPI_RS_FORCE_WASI=1
  suites " (WASI)" "$1" '__test__/wasi/*.spec.mjs'
  [ -n "$WASI_ONLY" ] || unset NAPI_RS_FORCE_WASI
}

# The soak (soak/soak.mjs, also `npm run soak`): the real loop under load and faults, this plugin
# beside the reference, memory against a baseline. Here a fixed amount of work, SOAK_ROUNDS rounds in
# every lane (14 by default), so that its verdict does not depend on the machine's speed; SOAK_S
# bounds it by seconds instead. One "ok: soak" or "not ok: soak" line per check, and "skip: soak"
# (counted as neither) for one the run did not measure enough to judge.
soak_stage() {
  if [ "$NODE_HARNESS" = skip ]; then
    echo "== soak skipped (TEST_HARNESS_NODE=skip): it needs Node >= 22.19"
    return
  fi
  local bound=SOAK_ROUNDS="${SOAK_ROUNDS:-14}" what="${SOAK_ROUNDS:-14} rounds"
  if [ -n "${SOAK_S:-}" ]; then bound=SOAK_S="$SOAK_S" what="$SOAK_S s"; fi
  stage "soak ($what, ${SOAK_AGENTS:-10} agents; the real loop under load and faults)"
  env "$bound" SOAK_AGENTS="${SOAK_AGENTS:-10}" "$NODE_HARNESS" soak/soak.mjs 2>&1 | tee "$log/soak"
  local status=${PIPESTATUS[0]}
  local p f
  p=$(grep -cE '^ok: soak' "$log/soak")
  f=$(grep -cE '^not ok: soak' "$log/soak")
  passed=$((passed + p)); failed=$((failed + f))
  if { [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; } || [ "$p" -eq 0 ]; then failed=$((failed + 1)); fi
  stage_done
}

if [ -n "$WASI_ONLY" ]; then
  wasi_stages extra
else
  suites "" extra '__test__/install/*.spec.mjs'
  soak_stage
  fuzz_stage
  if [ "${TEST_WASI:-}" = skip ]; then
    echo "== WASI stages skipped (TEST_WASI=skip)"
  else
    wasi_stages no-extra
  fi
fi

stage "generated files match the build"
if git diff --quiet -- binding.d.ts binding.cjs 2>/dev/null; then
  echo "ok: binding.d.ts and binding.cjs are as built"
  passed=$((passed + 1))
else
  git diff --stat -- binding.d.ts binding.cjs
  echo "not ok: binding.d.ts or binding.cjs differ from a fresh build (run npm run build and commit them)"
  failed=$((failed + 1))
fi
stage_done

rm -rf "$log"
echo "== times"
printf '%s\n' "${stage_times[@]}"
printf '%6d s  in all\n' "$((SECONDS - started_all))"
if [ "$skipped" -gt 0 ]; then echo "fuzz skipped (see the skip: fuzz line above)"; fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
