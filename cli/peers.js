// The packages only the replay command needs: the harness's session reader and js-yaml. They are
// the package's optional peerDependencies (package.json's peerDependenciesMeta is the list), so
// installing the plugin brings none of them (nor the native FFI module the JSONL backend depends
// on); the command imports them on first use and, when one is absent, names what to install.
import { createRequire } from 'node:module'

const { name, peerDependencies, peerDependenciesMeta } = createRequire(import.meta.url)('../package.json')

/** The command's packages, each with the range the package accepts. */
export const COMMAND_PACKAGES = Object.keys(peerDependenciesMeta)
  .filter((peer) => peerDependenciesMeta[peer].optional)
  .map((peer) => ({ name: peer, range: peerDependencies[peer] }))

/** Some of the command's packages are not installed: the message names them and the npm command that installs them. */
export class MissingPackagesError extends Error {
  constructor(missing, options) {
    const names = missing.map((peer) => peer.name)
    const install = missing.map((peer) => `${peer.name}@"${peer.range}"`).join(' ')
    super(`the replay command needs packages that are not installed: ${names.join(', ')}.\nThey are optional peerDependencies of ${name} (the plugin itself does not use them). Install them in this project:\n  npm install ${install}`, options)
    this.missing = names
  }
}

function installed(peer) {
  try {
    import.meta.resolve(peer)
    return true
  } catch (error) {
    if (error?.code === 'ERR_MODULE_NOT_FOUND') return false
    throw error
  }
}

/**
 * Imports `specifier`, one of the command's packages. When it or a package it imports is not
 * found, throws a MissingPackagesError naming every one of the command's packages that is absent
 * (one `npm install` brings them all); any other error as it is.
 */
export async function importPeer(specifier) {
  try {
    return await import(specifier)
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error
    const missing = COMMAND_PACKAGES.filter((peer) => !installed(peer.name))
    if (missing.length === 0) throw error
    throw new MissingPackagesError(missing, { cause: error })
  }
}
