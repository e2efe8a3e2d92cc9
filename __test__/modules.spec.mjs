// The core's module list, written twice for readers (core/src/lib.rs's doc and docs/ARCHITECTURE.md's
// table), held equal to the files and to their imports: every file of core/src is listed in both,
// in the same order, and each module uses (outside its tests) only modules listed before it.
import test from 'ava'
import { existsSync, readFileSync, readdirSync } from 'node:fs'

const root = new URL('../', import.meta.url)
const read = (path) => readFileSync(new URL(path, root), 'utf8')

/** A module's source outside its tests: its file and its folder's files but its tests' (`*tests.rs`), each cut at `#[cfg(test)] mod tests`. */
function sourceOf(module) {
  const files = [`core/src/${module}.rs`]
  if (existsSync(new URL(`core/src/${module}/`, root))) {
    files.push(...readdirSync(new URL(`core/src/${module}/`, root)).filter((name) => name.endsWith('.rs') && !name.endsWith('tests.rs')).map((name) => `core/src/${module}/${name}`))
  }
  return files.map((file) => read(file).split(/^#\[cfg\(test\)\]\nmod tests/m)[0]).join('\n')
}

const modules = readdirSync(new URL('core/src/', root)).filter((name) => name.endsWith('.rs') && name !== 'lib.rs').map((name) => name.slice(0, -3)).sort()
const lib = read('core/src/lib.rs')
const libList = [...lib.matchAll(/^\/\/! - `(\w+)`: /gm)].map(([, name]) => name)
const architecture = read('docs/ARCHITECTURE.md')
const coreTable = architecture.slice(architecture.indexOf('### core/src'), architecture.indexOf('\n### ', architecture.indexOf('### core/src') + 1))
const tableList = [...coreTable.matchAll(/^\| `(\w+)\.rs` \|/gm)].map(([, name]) => name).filter((name) => name !== 'lib')

test('lib.rs declares every file of core/src as a module, and its doc lists each once', (t) => {
  const declared = [...lib.matchAll(/^mod (\w+);/gm)].map(([, name]) => name).sort()
  t.deepEqual(declared, modules)
  t.deepEqual([...libList].sort(), modules)
})

test('ARCHITECTURE\'s table lists the same modules in the same order', (t) => {
  t.deepEqual(tableList, libList)
})

test('each module uses only modules listed before it', (t) => {
  const problems = []
  libList.forEach((module, at) => {
    const used = new Set([...sourceOf(module).matchAll(/crate::(\w+)/g)].map(([, name]) => name).filter((name) => name !== module && modules.includes(name)))
    for (const other of used) if (libList.indexOf(other) > at) problems.push(`${module} uses ${other}, listed after it`)
  })
  t.deepEqual(problems, [])
})
