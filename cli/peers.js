// The packages only the commands need: the harness's session reader (to replay harness logs) and
// js-yaml (a YAML config). They are optional peerDependencies of the package (package.json gives
// their ranges), so installing the plugin brings none of them (nor the native FFI module the JSONL
// backend depends on); a command imports them on first use and, when one is absent, names what
// this run needs, and the npm command that installs it.
import { createRequire } from 'node:module'

const { name, peerDependencies } = createRequire(import.meta.url)('../package.json')

/** What a run needs together: the harness's session reader comes in three packages, a YAML config in one. */
export const PEER_GROUPS = {
  '@deepseek-ai/dsh-session': ['@deepseek-ai/dsh-session', '@deepseek-ai/dsh-session-persistence', '@deepseek-ai/dsh-session-persistence-jsonl'],
  '@deepseek-ai/dsh-session-persistence-jsonl': ['@deepseek-ai/dsh-session', '@deepseek-ai/dsh-session-persistence', '@deepseek-ai/dsh-session-persistence-jsonl'],
  'js-yaml': ['js-yaml'],
}

/** Some of the packages a run needs are not installed: the message names them and the npm command that installs them. */
export class MissingPackagesError extends Error {
  constructor(missing, options) {
    const install = missing.map((peer) => `${peer}@"${peerDependencies[peer]}"`).join(' ')
    super(`this command needs packages that are not installed: ${missing.join(', ')}.\nThey are optional peerDependencies of ${name} (the plugin itself does not use them). Install them in this project:\n  npm install ${install}`, options)
    this.name = 'MissingPackagesError'
    this.missing = missing
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
 * Imports `specifier`, one of the commands' packages (a key of PEER_GROUPS). When it or a package
 * it imports is not found, throws a MissingPackagesError naming each package of its group that is
 * absent (one `npm install` brings them all); any other error as it is.
 */
export async function importPeer(specifier) {
  try {
    return await import(specifier)
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error
    const missing = PEER_GROUPS[specifier].filter((peer) => !installed(peer))
    if (missing.length === 0) throw error
    throw new MissingPackagesError(missing, { cause: error })
  }
}
