// The size of what ships and runs: lines of code in core/src (without its #[cfg(test)] modules, in
// the file or declared as `#[cfg(test)] mod name;`),
// the binding (src/), index.js and lib/, per file and in all. A line of code is neither blank nor a
// comment only (`//`, `///`, `//!`, and the lines of a `/* … */` block).
// Usage: node scripts/loc.mjs [--files]   (--files: every file's count, largest first)
import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const PARTS = [['core/src', /\.rs$/], ['src', /\.rs$/], ['lib', /\.c?js$/], ['.', /^index\.js$/]]

/** Files under `dir` (recursively, but only `dir` itself for the root) whose names match `pattern`. */
function files(dir, pattern) {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return dir === '.' ? [] : files(path, pattern)
    return pattern.test(entry.name) ? [path] : []
  })
}

/** Lines of code in `text`; for Rust, a `#[cfg(test)]` module (up to its closing `}` at column 0) counts none. */
export function linesOfCode(text, rust) {
  const lines = text.split('\n')
  let count = 0
  let inBlock = false
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim()
    if (rust && line === '#[cfg(test)]' && /^\s*mod \w+ \{$/.test(lines[i + 1] ?? '')) {
      while (i < lines.length && lines[i] !== '}') i++
      continue
    }
    if (inBlock) {
      if (line.includes('*/')) inBlock = false
      continue
    }
    if (line === '' || line.startsWith('//')) continue
    if (line.startsWith('/*')) {
      inBlock = !line.includes('*/')
      continue
    }
    count++
  }
  return count
}

/** The files of the `#[cfg(test)] mod name;` declarations in the Rust file `file`. */
function testModules(file, text) {
  const dir = /(^|\/)(lib|mod)\.rs$/.test(file) ? dirname(file) : file.slice(0, -'.rs'.length)
  return [...text.matchAll(/^#\[cfg\(test\)\]\n(?:#\[[^\n]*\]\n)*mod (\w+);$/gm)].map((m) => join(dir, `${m[1]}.rs`))
}

const all = PARTS.flatMap(([dir, pattern]) => files(dir, pattern)).map((file) => [file, readFileSync(join(root, file), 'utf8')])
const tests = new Set(all.flatMap(([file, text]) => (file.endsWith('.rs') ? testModules(file, text) : [])))
const counts = all
  .filter(([file]) => !tests.has(file))
  .map(([file, text]) => [relative(root, join(root, file)), linesOfCode(text, file.endsWith('.rs'))])
if (process.argv.includes('--files')) {
  for (const [file, count] of counts.toSorted((a, b) => b[1] - a[1])) console.log(`${String(count).padStart(6)}  ${file}`)
}
for (const [dir] of PARTS) {
  const prefix = dir === '.' ? 'index.js' : `${dir}/`
  const sum = counts.filter(([file]) => file.startsWith(prefix)).reduce((n, [, c]) => n + c, 0)
  console.log(`${String(sum).padStart(6)}  ${dir === '.' ? 'index.js' : dir}`)
}
console.log(`${String(counts.reduce((n, [, c]) => n + c, 0)).padStart(6)}  lines of code in all`)
