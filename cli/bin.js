#!/usr/bin/env node
// The dsh-repeat-tool-guard command: `hook` (one host event on stdin) and `replay` (see --help).
// `hook` runs on every tool call of an agent, so it loads only its own modules. It runs on the
// Nodes the package supports; reading a harness session log needs Node >= 22.19, as the harness
// does, and the command says so when it meets one on an older Node.
const argv = process.argv.slice(2)
const io = { stdout: process.stdout, stderr: process.stderr }
if (argv[0] === 'hook') {
  // A hook's stderr is for its own line: not for Node's notice, on every event, that the WASI build
  // it may load is experimental.
  const emitWarning = process.emitWarning
  process.emitWarning = (warning, ...rest) => {
    const type = typeof rest[0] === 'string' ? rest[0] : rest[0]?.type
    if (type === 'ExperimentalWarning' && String(warning?.message ?? warning).startsWith('WASI')) return
    emitWarning.call(process, warning, ...rest)
  }
  const { runHook } = await import('./hook.js')
  process.exitCode = await runHook(argv.slice(1), io)
} else {
  // A reader that stops early (`| head`) closes stdout: the command ends quietly, in every mode.
  process.stdout.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error
    process.exit(process.exitCode ?? 0)
  })
  const { main } = await import('./main.js')
  process.exitCode = await main(argv, io)
}
