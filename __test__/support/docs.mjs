// What specs read off the docs and the module loader: the blocks a page marks for tests, and the
// modules an import loads.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const root = new URL('../../', import.meta.url)

/** The blocks of `file` (from the repository's root) after `<!-- MARK: NAME -->` lines, by NAME, for `lang` fences. */
export function markedBlocks(file, mark = 'example', lang = 'js') {
  const text = readFileSync(new URL(file, root), 'utf8')
  const pattern = new RegExp(`<!-- ${mark}: ([\\w-]+) -->\\n\`\`\`${lang}\\n([\\s\\S]*?)\\n\`\`\``, 'g')
  return Object.fromEntries([...text.matchAll(pattern)].map(([, name, code]) => [name, code]))
}

/** What importing `module` (from the repository's root) exports, and every module URL the loader resolved for it. */
export function importTrace(t, module) {
  const dir = mkdtempSync(join(tmpdir(), 'trace-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const trace = join(dir, 'imports')
  const script = `const loaded = await import(${JSON.stringify(new URL(module, root).href)}); console.log(JSON.stringify(Object.keys(loaded)))`
  // --no-deprecation: newer Nodes deprecate the trace's module.register(), on stderr.
  const exported = JSON.parse(execFileSync(process.execPath, ['--no-deprecation', '--import', pathToFileURL(join(root.pathname, '__test__/support/trace-imports.mjs')).href, '--input-type=module', '-e', script], {
    env: { ...process.env, TRACE_IMPORTS: trace },
    encoding: 'utf8',
  }))
  return { exported, imported: readFileSync(trace, 'utf8').trim().split('\n') }
}
