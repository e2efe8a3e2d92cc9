// The guard's config in a file, for the replay and the hook commands: a cordis.yml with a
// repeat-tool-guard entry, or a YAML or JSON file holding what such an entry holds under `config:`.
// JSON is read with JSON.parse; YAML needs js-yaml, an optional peer, imported (with peers.js) only for it.
import { readFileSync } from 'node:fs'
import { extname } from 'node:path'

export const PACKAGE = '@deepseek-ai/dsh-repeat-tool-guard'

/** A config file that cannot be read or holds no config: the message names the file. */
export class ConfigFileError extends Error {}

/** The config object in the file at `path`. */
export async function loadConfig(path) {
  let text
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new ConfigFileError(error.code === 'ENOENT' ? `no such file: ${path}` : `cannot read ${path}: ${error.message}`)
  }
  return configOf(text, path)
}

/** The config object in `text`, a file's content as `loadConfig` takes it; `path` names it in errors. */
export async function configOf(text, path) {
  let document
  if (extname(path) === '.json') {
    try {
      document = JSON.parse(text)
    } catch (error) {
      throw new ConfigFileError(`${path}: not valid JSON: ${error.message}`)
    }
  } else {
    // Loaded only for YAML: the hook reads a JSON config on every event.
    const { importPeer } = await import('./peers.js')
    const { default: yaml } = await importPeer('js-yaml')
    try {
      document = yaml.load(text, { filename: path })
    } catch (error) {
      throw new ConfigFileError(`${path}: not valid YAML or JSON: ${error.message}`)
    }
  }
  if (document === undefined || document === null) return {}
  const entries = []
  findEntries(document, entries)
  if (entries.length > 1) throw new ConfigFileError(`${path}: ${entries.length} repeat-tool-guard entries; keep one`)
  if (entries.length === 1) return { ...entries[0].config }
  if (Array.isArray(document)) throw new ConfigFileError(`${path}: a plugin list without a repeat-tool-guard entry (name: ${PACKAGE})`)
  if (typeof document !== 'object') throw new ConfigFileError(`${path}: expected the guard's config object or a cordis.yml`)
  return { ...document }
}

/** Collects the plugin entries naming this package, at any depth of a cordis.yml. */
function findEntries(node, entries) {
  if (Array.isArray(node)) {
    for (const item of node) findEntries(item, entries)
  } else if (node !== null && typeof node === 'object') {
    if (node.name === PACKAGE || node.name === 'dsh-repeat-tool-guard') {
      entries.push(node)
      return
    }
    if ('name' in node || 'id' in node) findEntries(node.config, entries)
  }
}
