#!/usr/bin/env node
// The dsh-repeat-tool-guard command (`replay`; see --help). The harness's session reader it uses
// needs Node >= 22.19, as the harness does.
const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(`replay: needs Node >= 22.19 (the harness's session reader does); this is Node ${process.versions.node}\n`)
  process.exitCode = 2
} else {
  const { main } = await import('./main.js')
  process.exitCode = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr })
}
