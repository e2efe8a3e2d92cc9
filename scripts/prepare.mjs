// npm's `prepare` step in a checkout (npm install, npm ci): builds the addon with `npm run build`
// (napi build, which runs cargo). Without cargo on PATH it stops first and says what to install,
// instead of napi's "cargo metadata failed to run" and its stack trace.
// Exit status: the build's, or 1 when cargo cannot be run.
import { spawnSync } from 'node:child_process'

const cargo = spawnSync('cargo', ['--version'], { encoding: 'utf8' })
if (cargo.error || cargo.status !== 0) {
  const found = cargo.error
    ? cargo.error.code === 'ENOENT'
      ? 'there is no cargo on PATH'
      : `cargo could not be started (${cargo.error.code ?? cargo.error.message})`
    : `\`cargo --version\` failed: ${(cargo.stderr || cargo.stdout).trim().split('\n')[0]}`
  console.error(
    [
      `Building @deepseek-ai/dsh-repeat-tool-guard from this checkout needs Rust's cargo, and ${found}.`,
      'Install Rust with rustup (https://rustup.rs), open a new shell so that cargo is on PATH, and run npm install again.',
      'Installing a released version from npm needs no Rust: `npm install @deepseek-ai/dsh-repeat-tool-guard` comes with a prebuilt binary for your platform.',
    ].join('\n'),
  )
  process.exit(1)
}

// npm_execpath is the npm that runs this script (npm-cli.js): the build runs under the same npm.
const npmCli = process.env.npm_execpath
const [command, args] = npmCli && /\.[cm]?js$/.test(npmCli) ? [process.execPath, [npmCli]] : ['npm', []]
const build = spawnSync(command, [...args, 'run', 'build'], { stdio: 'inherit', shell: command === 'npm' && process.platform === 'win32' })
if (build.error) {
  console.error(`npm run build could not be started: ${build.error.message}`)
  process.exit(1)
}
process.exit(build.status ?? 1)
