// Builds the addon from this checkout: `napi build` (which runs cargo) for the host, release
// profile (`--debug`: the dev profile), writing binding.cjs and binding.d.ts. npm runs it as
// `npm run build`, `npm run build:debug` and the `prepare` step of `npm install`. Without a cargo
// that runs it stops first and says where to get Rust, instead of napi's "cargo metadata failed
// to run" and its stack trace. Exit status: napi's, or 1 when cargo cannot be run.
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const cargo = spawnSync('cargo', ['--version'], { encoding: 'utf8' })
if (cargo.error || cargo.status !== 0) {
  const found = cargo.error
    ? cargo.error.code === 'ENOENT'
      ? 'there is no cargo on PATH'
      : `cargo could not be started (${cargo.error.code ?? cargo.error.message})`
    : `\`cargo --version\` failed: ${(cargo.stderr || cargo.stdout).trim().split('\n')[0]}`
  const event = process.env.npm_lifecycle_event
  const again = event === 'prepare' ? 'npm install' : event ? `npm run ${event}` : 'node scripts/build.mjs'
  console.error(
    [
      `Building @deepseek-ai/dsh-repeat-tool-guard from this checkout needs Rust's cargo, and ${found}.`,
      `Install Rust with rustup (https://rustup.rs), open a new shell so that cargo is on PATH, and run \`${again}\` again.`,
      'Without Rust, install the package from tarballs packed on a machine that has it (the README\'s "From packed tarballs").',
    ].join('\n'),
  )
  process.exit(1)
}

const debug = process.argv.includes('--debug')
const root = fileURLToPath(new URL('..', import.meta.url))
// napi's own command, as node_modules/.bin/napi starts it (its package exports no path to it).
const require = createRequire(import.meta.url)
const napiManifest = require.resolve('@napi-rs/cli/package.json')
const napi = join(dirname(napiManifest), require(napiManifest).bin.napi)
const args = [napi, 'build', '--platform', ...(debug ? [] : ['--release']), '--js', 'binding.cjs', '--dts', 'binding.d.ts']
const build = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' })
if (build.error) {
  console.error(`napi build could not be started: ${build.error.message}`)
  process.exit(1)
}
process.exit(build.status ?? 1)
