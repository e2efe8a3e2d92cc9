#!/usr/bin/env bash
# Every test: cargo test (the core), a short cargo-fuzz run of each fuzz/ target, the addon suites
# (__test__/*.spec.mjs) on the Node that runs npm (the host's, >= 20) and on Node 26, the harness
# suites (__test__/harness/*.spec.mjs; the real harness needs Node >= 22.19) on Node 22 and on Node 26,
# the install test (the packed packages in a fresh harness project) on the host's Node with Node 22
# for the harness, the hook in the real agent clients (__test__/hosts/) on the host's Node, the soak, the same suites on the WebAssembly (WASI) build, and a check that the
# committed generated files match the build. Nodes 22 and 26 are the node22 and node26
# devDependencies in node_modules. The further Node and the WASI build run only the suites that
# depend on them (the lists below; docs/TESTING.md says why).
# Two lanes share the machine: this script's own (cargo test, the addon and harness suites on the
# first Nodes, the soak, the WASI suites) and a background one (the fuzz run, the WASI build, the
# install suites, the suites on the further Node), which writes each stage's output to a log that
# this lane prints, as the stage it is, when it reaches it. Each stage starts with a "==" line (with
# the Node's version for the ava suites) and ends with one giving its time in seconds (for a
# background stage, the time it ran); the last line is "N passed, N failed". A fuzz step that prints
# "skip: fuzz" counts as neither.
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
# AVA_TIMEOUT: ava's --timeout, the time no test may go without finishing (10m: generous on a loaded
#   machine; a test that runs out is named as a failure).
# The soak stage (not in the WASI-only run) runs soak/soak.mjs on the harness Node with
#   SOAK_ROUNDS=14 (a fixed amount of work) and SOAK_AGENTS=10 unless they are set; SOAK_S bounds it
#   by seconds instead.
# NAPI_RS_FORCE_WASI=1 (`npm run test:wasi`; also true or error): the WASI stages only, in this
#   lane, with the addon and harness suites on TEST_EXTRA_NODE too; cargo test, fuzzing and the
#   native suites are left out.
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
skipped=0
started_all=$SECONDS
stage_name=
stage_started=0
stage_times=()

# stage TITLE starts a stage, stage_done [SECONDS] ends it with a line giving its time.
stage() {
  stage_done
  stage_name=$1
  stage_started=$SECONDS
  echo "== $stage_name"
}
stage_done() {
  [ -n "$stage_name" ] || return 0
  local took=${1:-$((SECONDS - stage_started))}
  echo "== $stage_name: ${took} s"
  stage_times+=("$(printf '%6d s  %s' "$took" "$stage_name")")
  stage_name=
}

WASI_ONLY=
case ${NAPI_RS_FORCE_WASI:-} in 1 | true | error) WASI_ONLY=1 ;; esac
WASI=1
[ "${TEST_WASI:-}" != skip ] || WASI=

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
# - missing-binary, replay-loading, replay, replay-formats, peers: the loader's messages, the replay
#   command's reading and the eval's peer rules, JavaScript that loads no other build (the WASI
#   loader's own part is wasi.spec and the WASI install).
# - demo, cordis-yml, eval, replay*: the demo script, the loader reading a cordis.yml, and the replay
#   command and the eval with their reports, which the browser renders (replay-html).
NOT_ON_EXTRA_NODE=(build robustness-heavy)
NOT_ON_EXTRA_NODE_HARNESS=(demo replay-html)
NOT_ON_WASI=(build robustness-heavy missing-binary replay-loading replay replay-formats peers)
NOT_ON_WASI_HARNESS=(demo cordis-yml eval replay replay-cli replay-html replay-inputs)

# specs DIR NAME...: the spec files in DIR but those named (without .spec.mjs).
specs() {
  local dir=$1 spec; shift
  for spec in "$dir"/*.spec.mjs; do
    case " $* " in *" $(basename "$spec" .spec.mjs) "*) ;; *) echo "$spec" ;; esac
  done
}

# ---- Running and counting --------------------------------------------------------------------

# ava_on NODE FILE...: ava (through scripts/ava.mjs) on FILEs, its TAP output on stdout.
ava_on() {
  local node=$1; shift
  "$node" scripts/ava.mjs --tap --timeout="${AVA_TIMEOUT:-10m}" "$@" 2>&1
}

# tally_ava LOG FILE...: counts an ava run. scripts/ava.mjs keeps ava's TAP reporter from dying on
# a timeout or a process.exit() and names the test file of any other reporter error; the reporter
# prints "ok N - title" / "not ok N - title" per test, a skipped or todo test "ok N - title # SKIP"
# / "# TODO" (neither), then a plan line "1..N" and "# fail N". A stage is also failed when that
# plan line is missing (the runner or its reporter died: the files that reported no test are
# named), when ava counted more failures than it named, or when ava exited non-zero without naming one.
tally_ava() {
  local file="$log/$1" status p f counted spec silent=()
  shift
  status=$(cat "$file.done")
  p=$(grep -E '^ok [0-9]+' "$file" | grep -cvE '# (SKIP|TODO)')
  f=$(grep -cE '^not ok [0-9]+' "$file")
  counted=$(awk '/^# fail [0-9]+$/ { n = $3 } END { print n + 0 }' "$file")
  passed=$((passed + p)); failed=$((failed + f))
  if ! grep -qE '^1\.\.[0-9]+$' "$file"; then
    # ava prefixes titles with the file's name (without .spec.mjs) when it runs several files.
    for spec in "$@"; do
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
}

# ava_stage TITLE NODE FILE...: an ava stage in this lane, its output shown as it runs.
runs=0
ava_stage() {
  local title=$1 node=$2; shift 2
  runs=$((runs + 1))
  stage "ava: $title on Node $("$node" --version)"
  ava_on "$node" "$@" | tee "$log/ava-$runs"
  echo "${PIPESTATUS[0]}" >"$log/ava-$runs.done"
  tally_ava "ava-$runs" "$@"
  stage_done
}

# The background lane: each step's output goes to $log/NAME, its status to $log/NAME.done and the
# seconds it ran to $log/NAME.took; `collect NAME` waits for a step, prints its output and sets
# $lane_status and $lane_took.
lane_pid=
lane_step() {
  local name=$1 since=$SECONDS; shift
  "$@" >"$log/$name" 2>&1
  local status=$?
  echo $((SECONDS - since)) >"$log/$name.took"
  echo "$status" >"$log/$name.done"
}
collect() {
  while [ ! -e "$log/$1.done" ]; do
    if ! kill -0 "$lane_pid" 2>/dev/null && [ ! -e "$log/$1.done" ]; then
      echo "the background lane ended before this step" >>"$log/$1"
      echo 99 >"$log/$1.done"
      break
    fi
    sleep 1
  done
  cat "$log/$1"
  lane_status=$(cat "$log/$1.done")
  lane_took=$(cat "$log/$1.took" 2>/dev/null || echo 0)
}
# collected_ava_stage TITLE NODE STEP FILE...: an ava stage the background lane ran as STEP.
collected_ava_stage() {
  local title=$1 node=$2 step=$3; shift 3
  stage "ava: $title on Node $("$node" --version) (background lane)"
  collect "$step"
  tally_ava "$step" "$@"
  stage_done "$lane_took"
}

# ---- The stages ------------------------------------------------------------------------------

# cargo test prints "test result: ok. N passed; M failed; ..." per test binary.
cargo_stage() {
  stage "cargo test (core; compiles the tests first)"
  cargo test --workspace --quiet 2>&1 | tee "$log/cargo"
  local status=${PIPESTATUS[0]} p f
  read -r p f < <(awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i) ~ /^passed/) p += $(i-1); if ($(i) ~ /^failed/) f += $(i-1) } } END { print p + 0, f + 0 }' "$log/cargo")
  passed=$((passed + p)); failed=$((failed + f))
  if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then failed=$((failed + 1)); fi
  stage_done
}

# A short fuzz run (FUZZ_RUNS executions per target from a fixed seed, 10,000 by default: about a
# minute on one core, plus the first build; a fixed amount of work, so the verdict does not depend on
# the machine's speed), in the background lane: one "ok: fuzz" or "not ok: fuzz" line per target, or one "skip:
# fuzz" line saying what to install (the nightly toolchain or cargo-fuzz; .ci/run installs both),
# which counts as neither.
fuzz_stage() {
  stage "cargo fuzz (short run, ${FUZZ_RUNS:-10000} execs per target; background lane)"
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
  stage_done "$lane_took"
}

# The WASI binary: built in the background lane, or here in the WASI-only run.
wasi_build_stage() {
  stage "build the WASI binary (scripts/build-all.sh wasm32-wasip1-threads)"
  if [ -n "$lane_pid" ]; then
    collect wasi-build
  else
    bash scripts/build-all.sh wasm32-wasip1-threads
    lane_status=$?
    lane_took=
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
  stage_done $lane_took
}

# The WASI suites, with NAPI_RS_FORCE_WASI=1 (`npm run test:wasi` keeps the value it was given);
# EXTRA "extra" runs the addon and harness suites on the further Node too.
wasi_suites() {
  local extra=$1 addon harness
  mapfile -t addon < <(specs __test__ "${NOT_ON_WASI[@]}")
  mapfile -t harness < <(specs __test__/harness "${NOT_ON_WASI_HARNESS[@]}")
  [ -n "$WASI_ONLY" ] || export NAPI_RS_FORCE_WASI=1
  ava_stage "addon (WASI)" "$NODE_HOST" "${addon[@]}"
  [ "$extra" != extra ] || [ "$NODE_EXTRA" = skip ] || ava_stage "addon (WASI)" "$NODE_EXTRA" "${addon[@]}"
  if [ "$NODE_HARNESS" = skip ]; then
    echo "== harness suites (WASI) skipped (TEST_HARNESS_NODE=skip): they need Node >= 22.19"
  else
    ava_stage "harness (WASI)" "$NODE_HARNESS" "${harness[@]}"
  fi
  [ "$extra" != extra ] || [ "$NODE_EXTRA" = skip ] || ava_stage "harness (WASI)" "$NODE_EXTRA" "${harness[@]}"
  TEST_HARNESS_NODE="$NODE_HARNESS" ava_stage "install (WASI)" "$NODE_HOST" __test__/wasi/*.spec.mjs
  [ -n "$WASI_ONLY" ] || unset NAPI_RS_FORCE_WASI
}

# The soak (soak/soak.mjs, also `npm run soak`): the real loop under load and faults, this plugin
# beside the reference, memory against a baseline, for SOAK_ROUNDS rounds in every lane (14 here),
# or SOAK_S seconds when that is set. One "ok: soak" or "not ok: soak" line per check, and a
# "skip: soak" line (neither) for a check the run is too short for.
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

# ---- The run ---------------------------------------------------------------------------------

mapfile -t ADDON < <(specs __test__)
mapfile -t HARNESS < <(specs __test__/harness)
mapfile -t ADDON_EXTRA < <(specs __test__ "${NOT_ON_EXTRA_NODE[@]}")
mapfile -t HARNESS_EXTRA < <(specs __test__/harness "${NOT_ON_EXTRA_NODE_HARNESS[@]}")
INSTALL=(__test__/install/*.spec.mjs)
HOSTS=(__test__/hosts/*.spec.mjs)

if [ -n "$WASI_ONLY" ]; then
  wasi_build_stage
  wasi_suites extra
else
  (
    lane_step fuzz bash scripts/fuzz.sh "runs:${FUZZ_RUNS:-10000}"
    [ -z "$WASI" ] || lane_step wasi-build bash scripts/build-all.sh wasm32-wasip1-threads
    TEST_HARNESS_NODE="$NODE_HARNESS" lane_step install ava_on "$NODE_HOST" "${INSTALL[@]}"
    if [ "$NODE_EXTRA" != skip ]; then
      lane_step addon-extra ava_on "$NODE_EXTRA" "${ADDON_EXTRA[@]}"
      [ "$NODE_HARNESS" = skip ] || lane_step harness-extra ava_on "$NODE_EXTRA" "${HARNESS_EXTRA[@]}"
    fi
  ) &
  lane_pid=$!

  cargo_stage
  ava_stage addon "$NODE_HOST" "${ADDON[@]}"
  if [ "$NODE_HARNESS" = skip ]; then
    echo "== harness suites skipped (TEST_HARNESS_NODE=skip): they need Node >= 22.19"
  else
    ava_stage harness "$NODE_HARNESS" "${HARNESS[@]}"
  fi
  # The real Claude Code, Codex and Gemini CLI, offline, running the hook command (scripts/clients.mjs
  # installs the pinned clients into a cache outside the repository on first use).
  ava_stage "hosts (the real Claude Code, Codex and Gemini CLI, offline)" "$NODE_HOST" "${HOSTS[@]}"
  soak_stage
  fuzz_stage
  if [ -n "$WASI" ]; then
    wasi_build_stage
    wasi_suites no-extra
  else
    echo "== WASI stages skipped (TEST_WASI=skip)"
  fi
  collected_ava_stage install "$NODE_HOST" install "${INSTALL[@]}"
  if [ "$NODE_EXTRA" = skip ]; then
    echo "== addon and harness suites on a further Node skipped (TEST_EXTRA_NODE=skip)"
  else
    collected_ava_stage addon "$NODE_EXTRA" addon-extra "${ADDON_EXTRA[@]}"
    [ "$NODE_HARNESS" = skip ] || collected_ava_stage harness "$NODE_EXTRA" harness-extra "${HARNESS_EXTRA[@]}"
  fi
  wait "$lane_pid"
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

echo "== times (a background stage's time is the time it ran, beside others)"
printf '%s\n' "${stage_times[@]}"
printf '%6d s  in all\n' "$((SECONDS - started_all))"
# What did not run, said rather than hidden: ava's skipped tests (TAP "# SKIP"), and every "skip:"
# line a stage printed (the fuzz run, the soak's unjudged checks, a test's missing tool), each with
# its reason and what runs it.
skipped_tests=$(cat "$log"/ava-* "$log"/install "$log"/addon-extra "$log"/harness-extra 2>/dev/null | grep -cE '^ok [0-9]+ .*# SKIP')
mapfile -t skip_lines < <(cat "$log"/* 2>/dev/null | grep -oE '^(# )?skip: .*' | sed 's/^# //' | sort -u)
echo "== skipped: $skipped_tests tests and $((${#skip_lines[@]})) checks or stages, for these reasons:"
[ "${#skip_lines[@]}" -eq 0 ] || printf '  %s\n' "${skip_lines[@]}"
rm -rf "$log"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
