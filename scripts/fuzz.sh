#!/usr/bin/env bash
# Runs the cargo-fuzz targets in fuzz/, one after the other on one core:
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]     (default: 600 s each, canonical and state_machine)
#   bash scripts/fuzz.sh runs:N [TARGET...]        N executions each from a fixed seed: the same work,
#                                                  and the same verdict, however fast the machine is
# The corpus (fuzz/corpus/TARGET, git-ignored) is seeded with the golden vectors' inputs and kept
# between runs. Per target it prints one line, "ok: fuzz TARGET ..." or "not ok: fuzz TARGET ..."
# (with the finding's artifact and libFuzzer's last lines), or a single "skip: fuzz ..." line, saying
# what to install, when the nightly toolchain (for libFuzzer's instrumentation) or cargo-fuzz is
# missing. Lines without those prefixes are progress.
# Exit status: 0 no finding, 1 a finding or a build failure, 2 skipped.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds=${1:-600}
shift || true
# How long each target runs: for SECONDS, or for N executions from seed 1.
case $seconds in
  runs:*) bound=("-runs=${seconds#runs:}" -seed=1) what="${seconds#runs:} execs" ;;
  *) bound=("-max_total_time=$seconds") what="$seconds s" ;;
esac
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(canonical state_machine)

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "skip: fuzz — no nightly Rust toolchain (cargo-fuzz builds with it): install it with rustup toolchain install nightly"
  exit 2
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "skip: fuzz — cargo-fuzz is not installed: install it with cargo install cargo-fuzz --version 0.13.1 --locked"
  exit 2
fi

# cargo fuzz builds into fuzz/target/HOST/release: none there yet means the first, long build.
build_dir="$root/fuzz/target/$(rustc -vV | awk '/^host:/ { print $2 }')/release"
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
status=0
for target in "${targets[@]}"; do
  corpus="$root/fuzz/corpus/$target"
  mkdir -p "$corpus"
  if [ -z "$(ls -A "$corpus")" ] && [ "$target" = canonical ]; then
    # Seed with the 438 V8-generated golden inputs.
    node -e '
      const fs = require("node:fs")
      const [golden, dir] = process.argv.slice(1)
      JSON.parse(fs.readFileSync(golden, "utf8")).forEach(({ input }, i) => fs.writeFileSync(`${dir}/golden-${i}`, input))
    ' "$root/__test__/golden/canonical.json" "$corpus"
  fi
  # canonical: JSON tokens as a dictionary, inputs up to 4 KB; state_machine: up to 2 KB of
  # operations, which keeps it near a thousand executions a second on an idle core.
  extra=(-max_len=2048)
  [ "$target" = canonical ] && extra=(-max_len=4096 "-dict=$root/fuzz/json.dict")
  if [ -d "$build_dir" ]; then
    echo "building fuzz target $target…"
  else
    echo "building fuzz target $target (the first build takes a few minutes)…"
  fi
  started=$SECONDS
  # -O: optimized, -a: debug assertions (integer overflow panics too); -s none: no sanitizer, since
  # the core forbids unsafe code and its targets hold none (AddressSanitizer would find nothing of
  # ours, and costs a third of the build and of each execution); -len_control=0: long inputs from
  # the start, so runs reach every threshold and previews get cut.
  if ! (cd fuzz && cargo +nightly fuzz build -O -a -s none "$target") >"$log/build-$target" 2>&1; then
    tail -30 "$log/build-$target"
    echo "not ok: fuzz $target — the fuzz target does not build"
    status=1
    continue
  fi
  echo "built $target in $((SECONDS - started)) s; fuzzing it for $what…"
  started=$SECONDS
  (cd fuzz && cargo +nightly fuzz run -O -a -s none "$target" "$corpus" -- \
    "${bound[@]}" -len_control=0 -print_final_stats=1 "${extra[@]}") >"$log/run-$target" 2>&1
  code=$?
  execs=$(awk '/^stat::number_of_executed_units/ { print $NF }' "$log/run-$target" | tail -1)
  took=$((SECONDS - started))
  if [ "$code" -eq 0 ]; then
    echo "ok: fuzz $target — ${execs:-?} execs in ${took} s, no finding (corpus: $(ls "$corpus" | wc -l) inputs)"
  else
    grep -vE '^(#[0-9]+|INFO:|\s*"|.*# Uses:)' "$log/run-$target" | tail -40
    artifact=$(grep -oE "Test unit written to [^ ]+" "$log/run-$target" | tail -1)
    echo "not ok: fuzz $target — finding after ${execs:-?} execs in ${took} s: ${artifact:-see the output above}"
    echo "  reproduce: (cd fuzz && cargo +nightly fuzz run -O -a -s none $target ${artifact#Test unit written to })"
    status=1
  fi
done
exit "$status"
