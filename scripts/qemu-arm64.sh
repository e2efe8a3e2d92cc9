#!/usr/bin/env bash
# The addon suites against the linux-arm64-gnu binary under qemu-user: scripts/qemu.sh linux-arm64-gnu.
# Usage: bash scripts/qemu-arm64.sh [ava arguments]
exec bash "$(dirname "$0")/qemu.sh" linux-arm64-gnu "$@"
