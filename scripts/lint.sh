#!/usr/bin/env bash
# Lint: rustfmt, clippy with warnings as errors, and oxlint over the hand-written JavaScript.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
node_modules/.bin/oxlint --deny-warnings --ignore-pattern binding.cjs index.js harness demo benchmark __test__ scripts
