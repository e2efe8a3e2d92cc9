// npm's `prepack` and `postpack` steps (npm pack, npm publish): the packed package.json has no
// `prepare`. In a checkout `prepare` builds the addon from the Rust sources; a packed package has
// neither the sources nor the script, and npm would list `prepare` as an install script to approve.
// `strip` keeps the checkout's package.json as .package.json.checkout and writes it without
// `prepare` (npm reads it again after prepack: packing runs no build); `restore` puts it back.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

export const KEPT = '.package.json.checkout'

/** `manifest` as packed: the same, without the checkout's `prepare` script. */
export function packedManifest(manifest) {
  const scripts = { ...manifest.scripts }
  delete scripts.prepare
  return { ...manifest, scripts }
}

export function strip(dir) {
  const kept = join(dir, KEPT)
  if (existsSync(kept)) {
    throw new Error(`${kept} exists: an earlier npm pack did not finish. It holds the checkout's package.json; move it back over package.json and pack again.`)
  }
  const text = readFileSync(join(dir, 'package.json'), 'utf8')
  writeFileSync(kept, text)
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(packedManifest(JSON.parse(text)), null, 2)}\n`)
}

export function restore(dir) {
  const kept = join(dir, KEPT)
  if (existsSync(kept)) renameSync(kept, join(dir, 'package.json'))
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const step = { strip, restore }[process.argv[2]]
  if (!step) {
    console.error('usage: node scripts/pack-manifest.mjs strip|restore')
    process.exit(2)
  }
  step(process.cwd())
}
