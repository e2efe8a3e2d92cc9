// The docs stay readable and their links resolve: README.md and docs/TESTING.md within their sizes,
// and every relative link in README.md and docs/*.md pointing at a file that exists, and at a heading
// of that file when it names one (`#anchor`, GitHub's way of making one of a heading).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import test from 'ava'

import { markedBlocks } from './support/docs.mjs'

const ROOT = new URL('../', import.meta.url)
const README_MAX = 18_000
const TESTING_MAX = 12_000

const FILES = ['README.md', ...readdirSync(new URL('docs/', ROOT)).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)]

test(`README.md is at most ${README_MAX} bytes, docs/TESTING.md at most ${TESTING_MAX}`, (t) => {
  t.true(statSync(new URL('README.md', ROOT)).size <= README_MAX, `README.md: ${statSync(new URL('README.md', ROOT)).size} bytes`)
  t.true(statSync(new URL('docs/TESTING.md', ROOT)).size <= TESTING_MAX, `docs/TESTING.md: ${statSync(new URL('docs/TESTING.md', ROOT)).size} bytes`)
})

/** The text of a markdown file outside fenced blocks, with inline code spans blanked out. */
function prose(text) {
  let fenced = false
  return text.split('\n').map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced
      return ''
    }
    return fenced ? '' : line.replace(/(`+)[^`]*?\1/g, '')
  }).join('\n')
}

/** GitHub's anchor for each heading of a markdown file (a repeated one gets -1, -2, …). */
function anchorsOf(text) {
  const anchors = new Set()
  const seen = new Map()
  for (const line of prose(text.replace(/`/g, '')).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!heading) continue
    const base = heading[1]
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  for (const [, name] of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(name)
  return anchors
}

/** The relative links of a markdown file: `[text](target)`, `![alt](target)` and `[label]: target`. */
function linksOf(text) {
  const body = prose(text)
  const targets = [
    ...[...body.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]),
    ...[...body.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map((match) => match[1]),
  ]
  return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
}

test('every relative link in README.md and docs/*.md points at a file that exists, and at a heading it has', (t) => {
  const broken = []
  let checked = 0
  for (const file of FILES) {
    const from = new URL(file, ROOT)
    for (const link of linksOf(readFileSync(from, 'utf8'))) {
      checked++
      const [path, anchor] = link.split('#')
      const target = path === '' ? from : new URL(decodeURI(path), from)
      if (!existsSync(target)) {
        broken.push(`${file}: ${link} (no such file)`)
        continue
      }
      if (anchor === undefined || anchor === '' || !target.pathname.endsWith('.md')) continue
      if (!anchorsOf(readFileSync(target, 'utf8')).has(decodeURIComponent(anchor))) broken.push(`${file}: ${link} (no such heading)`)
    }
  }
  t.true(checked > 20, `${checked} links checked`)
  t.deepEqual(broken, [])
})

test('the README\'s framework examples are docs/FRAMEWORKS.md\'s, which the framework specs run', (t) => {
  const readme = markedBlocks('README.md')
  const page = markedBlocks('docs/FRAMEWORKS.md')
  t.true(Object.keys(readme).length > 0)
  for (const [name, code] of Object.entries(readme)) t.is(code, page[name], name)
})
