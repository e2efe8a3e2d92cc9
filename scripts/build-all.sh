#!/usr/bin/env bash
# Builds every target of package.json's napi.targets that can be built on a Linux x64 machine:
# x86_64-unknown-linux-gnu natively, the other Linux, the FreeBSD and both macOS targets through zig
# (`napi build -x`, i.e. cargo-zigbuild), and the WebAssembly build (wasm32-wasip1-threads, with
# Rust's own wasm linker and the emnapi devDependency). Left to the release workflow: the Windows
# MSVC targets (cargo-xwin needs the MSVC runtime download, not reachable from a package registry)
# and Android (it links against the Android NDK, which no package registry carries).
# Each target lands in artifacts/<target>/ (with the loader and typings it generated, compared with
# the committed ones); `napi artifacts` then copies the .node files into npm/<platform>/, the WASI
# build's .wasm and generated loaders are copied into npm/wasm32-wasi/ (the files its package.json
# lists), and scripts/check-binaries.mjs checks every binary found there.
# Not part of `npm test` or .ci/run: it takes minutes. Usage: npm run build:all [-- <target>...]
set -euo pipefail
cd "$(dirname "$0")/.."

ZIGLANG_VERSION=0.17.0
CARGO_ZIGBUILD_VERSION=0.24.0
TOOLS="$PWD/.tools/zig"

mapfile -t all_targets < <(node -p "require('./package.json').napi.targets.join('\n')")
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")

host_target=$(rustc -vV | sed -n 's/^host: //p')
need_zig=false
for t in "${targets[@]}"; do
  case $t in *windows-msvc | *-android | wasm32-*) ;; "$host_target") ;; *) need_zig=true ;; esac
done

if $need_zig; then
  # cargo-zigbuild and zig from PyPI, pinned, in a private venv (napi's -x wants `zig` on PATH).
  if ! "$TOOLS/bin/cargo-zigbuild" --version 2>/dev/null | grep -qx "cargo-zigbuild $CARGO_ZIGBUILD_VERSION" ||
     [ "$("$TOOLS/bin/python" -m ziglang version 2>/dev/null)" != "$ZIGLANG_VERSION" ]; then
    echo "== installing ziglang $ZIGLANG_VERSION and cargo-zigbuild $CARGO_ZIGBUILD_VERSION from PyPI into $TOOLS"
    python3 -m venv "$TOOLS"
    "$TOOLS/bin/pip" install --quiet --disable-pip-version-check "ziglang==$ZIGLANG_VERSION" "cargo-zigbuild==$CARGO_ZIGBUILD_VERSION"
  fi
  zig_bin=$("$TOOLS/bin/python" -c 'import ziglang, os; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')
  ln -sf "$zig_bin" "$TOOLS/bin/zig"
  export PATH="$TOOLS/bin:$PATH"
  echo "== zig $(zig version), $(cargo-zigbuild --version)"
fi

built=()
skipped=()
failed=()
for t in "${targets[@]}"; do
  case $t in
    *windows-msvc)
      echo "== $t: skipped (MSVC targets build in the release workflow, on Windows)"
      skipped+=("$t")
      continue
      ;;
    *-android)
      echo "== $t: skipped (needs the Android NDK; built in the release workflow, whose runners have it)"
      skipped+=("$t")
      continue
      ;;
  esac
  out="artifacts/$t"
  rm -rf "$out"
  mkdir -p "$out"
  args=(--platform --release --target "$t" --output-dir "$out" --js binding.cjs --dts binding.d.ts)
  case $t in "$host_target" | wasm32-*) ;; *) args+=(-x) ;; esac
  rustup target add "$t" >/dev/null 2>&1 || rustup target add "$t"
  # zig otherwise stamps its newest macOS as the minimum: the oldest macOS Node 20 (x64) and
  # Node on Apple silicon (arm64) run on.
  case $t in
    x86_64-apple-darwin) export MACOSX_DEPLOYMENT_TARGET=10.15 ;;
    aarch64-apple-darwin) export MACOSX_DEPLOYMENT_TARGET=11.0 ;;
    *) unset MACOSX_DEPLOYMENT_TARGET ;;
  esac
  echo "== $t: napi build ${args[*]}"
  start=$SECONDS
  if node_modules/.bin/napi build "${args[@]}"; then
    echo "== $t: built in $((SECONDS - start)) s"
    for generated in binding.cjs binding.d.ts; do
      if ! cmp -s "$out/$generated" "$generated"; then
        echo "== $t: the generated $generated differs from the committed one"
        failed+=("$t")
        continue 2
      fi
    done
    if [ "$t" = wasm32-wasip1-threads ]; then
      # The WASI package: the .wasm and the loaders napi generated beside it, as its files list.
      mapfile -t wasi_files < <(node -p "require('./npm/wasm32-wasi/package.json').files.join('\n')")
      for file in "${wasi_files[@]}"; do cp "$out/$file" npm/wasm32-wasi/; done
    fi
    built+=("$t")
  else
    echo "== $t: build FAILED after $((SECONDS - start)) s"
    failed+=("$t")
  fi
done

if [ ${#built[@]} -gt 0 ]; then
  echo "== napi artifacts: artifacts/ -> npm/<platform>/"
  # napi artifacts insists on exactly the configured targets: give it those in artifacts/ (this
  # run's and earlier runs').
  present=()
  for dir in artifacts/*/; do
    compgen -G "$dir*.node" >/dev/null && present+=("$(basename "$dir")")
  done
  # The WASI build's files are in npm/wasm32-wasi/ already (above); napi artifacts would also
  # write its loaders into the package root, and a WASI loader found there makes it delete
  # binding.cjs (which that loader's metadata names as its root entry). `npm run test:wasi`
  # puts them back.
  rm -f repeat-tool-guard.wasi.cjs repeat-tool-guard.wasm32-wasi.wasm wasi-worker.mjs
  rm -rf .tools/wasi-aside
  mkdir -p .tools/wasi-aside
  for dir in artifacts/wasm32-*/; do
    if [ -d "$dir" ]; then mv "$dir" .tools/wasi-aside/; fi
  done
  node -e 'console.log(JSON.stringify({ targets: process.argv.slice(1) }))' "${present[@]}" > artifacts/napi-built.json
  # napi artifacts also deletes the package root's binaries of targets its config leaves out: keep
  # the host's (`npm run build`'s) when this run did not build it.
  host_binary=$(node -p "require('./lib/missing-binary.cjs').expectedBinary().platform")
  if [ -f "repeat-tool-guard.$host_binary.node" ]; then cp "repeat-tool-guard.$host_binary.node" .tools/wasi-aside/host.node; fi
  if [ ${#present[@]} -gt 0 ]; then
    node_modules/.bin/napi artifacts --config-path artifacts/napi-built.json --output-dir artifacts --npm-dir npm
  fi
  if [ -f .tools/wasi-aside/host.node ] && [ ! -f "repeat-tool-guard.$host_binary.node" ]; then
    mv .tools/wasi-aside/host.node "repeat-tool-guard.$host_binary.node"
  fi
  rm -f .tools/wasi-aside/host.node
  for dir in .tools/wasi-aside/*/; do
    if [ -d "$dir" ]; then mv "$dir" artifacts/; fi
  done
  rmdir .tools/wasi-aside
  # napi artifacts also drops a copy of each binary in the package root (where the generated loader
  # looks first): keep only the host's, which `npm run build` makes anyway.
  for copy in repeat-tool-guard.*.node; do
    [ "$copy" = "repeat-tool-guard.$host_binary.node" ] || rm -f "$copy"
  done
  node scripts/check-binaries.mjs
fi

echo "built: ${built[*]:-none}"
echo "skipped: ${skipped[*]:-none}"
echo "failed: ${failed[*]:-none}"
[ ${#failed[@]} -eq 0 ]
