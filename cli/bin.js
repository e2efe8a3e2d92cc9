#!/usr/bin/env node
// The dsh-repeat-tool-guard command (`replay`; see --help). It runs on the Nodes the package
// supports; reading a harness session log needs Node >= 22.19, as the harness does, and the
// command says so when it meets one on an older Node.
const { main } = await import('./main.js')
process.exitCode = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr })
