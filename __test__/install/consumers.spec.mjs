// The packed package (packed.mjs) in fresh projects with the test runners its users have, each
// running the same checks (consumers/checks.mjs): vitest 4 and 5 in every pool, jest 30 in its ESM
// mode, node --test and ava. jest's ESM mode and vitest's vmThreads and vmForks pools run test code
// in a vm context, while a native addon makes its objects and errors in Node's main realm; the
// checks compare the package's results and errors with the runner's own strict equality,
// `toThrow(TypeError)` and `instanceof`, in the test's realm. The class checks run on this Node
// wherever the runner supports it, everything (the rc.8 agent loop too) on the harness Node
// (TEST_HARNESS_NODE). vitest's pools are the same code in 4 and 5, so each line runs them on one
// Node: 4.1 on this Node (Node 20 in npm test, the one vitest 5 does not support), 5.1 on the
// harness Node. Each runner's project is installed once, all of them at the same time.
import { execFile } from 'node:child_process'
import { copyFileSync, existsSync, readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import test from 'ava'
import { harnessDependencies, harnessNode, installProject, makeWork, once, packPackages, removeWork, root, run } from './packed.mjs'

const fixtures = join(root, '__test__', 'install', 'consumers')
const work = makeWork('rtg-consumers-')
const started = Date.now()
const seconds = (since) => ((Date.now() - since) / 1000).toFixed(1)
let runs = 0
test.after.always(() => {
  console.log(`# consumers: ${runs} runner runs, ${seconds(started)} s in all`)
  removeWork(work)
})

/** `[major, minor]` of a Node version string. */
const parse = (version) => version.split('.').map(Number).slice(0, 2)
/** Whether `version` is within `engines`: [major, minor] minimums per major line, the last one open-ended. */
function supports(engines, version) {
  const [major, minor] = parse(version)
  const line = engines.find(([m]) => m === major)
  if (line) return minor >= line[1]
  const [lastMajor] = engines.at(-1)
  return major > lastMajor
}

/** The tests in a JSON report as vitest and jest write it (jest's format), by status. */
function readJson({ reportPath }) {
  if (!existsSync(reportPath)) return { passed: [], failed: [], skipped: [] }
  const tests = JSON.parse(readFileSync(reportPath, 'utf8')).testResults.flatMap((file) => file.assertionResults)
  const titled = (statuses) => tests.filter((result) => statuses.includes(result.status))
  return {
    passed: titled(['passed']).map((result) => result.title),
    failed: titled(['failed']).map((result) => `${result.title}: ${result.failureMessages.join('\n').split('\n').slice(0, 3).join(' / ')}`),
    skipped: titled(['skipped', 'pending', 'todo', 'disabled']).map((result) => result.title),
  }
}

/** Top-level test points in TAP output (node --test, ava): `ok N - title`, `# SKIP` for a skip. */
function readTap({ stdout }) {
  const report = { passed: [], failed: [], skipped: [] }
  for (const [, not, title, skip] of stdout.matchAll(/^(not )?ok \d+ - (.*?)(?: # (SKIP|TODO)\b.*)?$/gm)) {
    if (not) report.failed.push(title)
    else if (skip) report.skipped.push(title)
    else report.passed.push(title)
  }
  return report
}

// Node 22's vm contexts lack Symbol.dispose, which the harness uses: vitest's config names
// consumers/dispose.mjs as a setup file (jest's node environment defines it itself). Each runner:
// its packages at exact versions, the Node versions its engines allow, and its variants (vitest's
// pools), each a command line for `node`.
const runners = [
  ...[['4.1.12', '8.3.8', [[20, 19], [22, 12], [24, 0]], 'host'], ['5.1.2', '8.4.0', [[22, 12], [24, 0], [26, 0]], 'harness']].map(([version, vite, engines, only]) => ({
    name: `vitest ${version}`,
    dependencies: { vitest: version, vite },
    files: ['vitest.config.mjs', 'vitest.test.mjs', 'dispose.mjs'],
    engines,
    only,
    variants: ['forks', 'threads', 'vmThreads', 'vmForks'].map((pool) => ({
      label: pool,
      args: (report) => ['node_modules/vitest/vitest.mjs', 'run', `--pool=${pool}`, '--reporter=json', `--outputFile=${report}`],
    })),
    read: readJson,
  })),
  {
    name: 'jest 30.5.2',
    dependencies: { jest: '30.5.2', '@jest/globals': '30.5.2' },
    files: ['jest.config.mjs', 'jest.test.mjs'],
    engines: [[20, 0], [22, 0], [24, 0]],
    variants: [{
      label: 'ESM, node --experimental-vm-modules',
      args: (report) => ['--experimental-vm-modules', 'node_modules/jest/bin/jest.js', '--json', `--outputFile=${report}`],
    }],
    read: readJson,
  },
  {
    name: 'node --test',
    dependencies: {},
    files: ['node.test.mjs'],
    engines: [[20, 0]],
    variants: [{ args: () => ['--test', '--test-reporter=tap', 'node.test.mjs'] }],
    read: readTap,
  },
  {
    name: 'ava 7.0.0',
    dependencies: { ava: '7.0.0' },
    files: ['ava.test.mjs'],
    engines: [[20, 19], [22, 20], [24, 12], [25, 0]],
    variants: [{ args: () => ['node_modules/ava/entrypoints/cli.mjs', '--tap', 'ava.test.mjs'] }],
    read: readTap,
  },
]

// This Node, and the harness Node when it is another version.
// Its roles: `host` (the Node that runs this suite) and `harness` (TEST_HARNESS_NODE), one Node or two.
const nodes = [{ path: process.execPath, version: process.versions.node, roles: ['host', 'harness'] }]
if (harnessNode) {
  const version = run(harnessNode, ['-p', 'process.versions.node']).trim()
  if (version !== process.versions.node) {
    nodes[0].roles = ['host']
    nodes.push({ path: harnessNode, version, roles: ['harness'] })
  }
} else {
  console.log('# consumers: no Node >= 22.19 for the harness (TEST_HARNESS_NODE), so no rc.8 loop and no runner on Node 22 here')
}
for (const node of nodes) {
  const major = parse(node.version)[0]
  node.label = nodes.filter((other) => parse(other.version)[0] === major).length > 1 ? `Node ${node.version}` : `Node ${major}`
  // consumers/checks.mjs runs the loop where the published harness can run.
  const [, minor] = parse(node.version)
  node.loop = major > 22 || (major === 22 && minor >= 19)
}

const packed = once(() => packPackages(work))
const slug = (text) => text.replace(/[^a-z0-9]+/gi, '-')

// One project per runner, installed by the first of its runs; all start at once.
const projects = new Map()
function project(runner) {
  if (!projects.has(runner.name)) {
    projects.set(runner.name, (async () => {
      const { dependencies } = await packed()
      const dir = join(work, slug(runner.name))
      const { seconds: installSeconds } = await installProject(dir, `consumer-${slug(runner.name)}`, { ...harnessDependencies, ...dependencies, ...runner.dependencies })
      copyFileSync(join(root, '__test__', 'oracle.mjs'), join(dir, 'oracle.mjs'))
      copyFileSync(join(root, '__test__', 'support', 'scripted.mjs'), join(dir, 'scripted.mjs'))
      for (const file of ['checks.mjs', ...runner.files]) copyFileSync(join(fixtures, file), join(dir, file))
      return { dir, installSeconds, installedAt: seconds(started) }
    })())
  }
  return projects.get(runner.name)
}

// The runners' own runs take turns, as many at a time as there are CPUs.
const slots = availableParallelism()
let busy = 0
const queue = []
async function inTurn(f) {
  if (busy < slots) busy++
  else await new Promise((resolve) => queue.push(resolve))
  try {
    return await f()
  } finally {
    const next = queue.shift()
    if (next) next()
    else busy--
  }
}

/** Runs `node args` in `cwd`; resolves to the exit code (or signal) and the output, never rejects. */
function runNode(node, args, cwd) {
  const env = { ...process.env, PATH: `${dirname(node)}${delimiter}${process.env.PATH}` }
  for (const name of ['NODE_OPTIONS', 'NODE_TEST_CONTEXT', 'FORCE_COLOR']) delete env[name]
  return new Promise((resolve) => {
    execFile(node, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 << 20, timeout: 5 * 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? error.code ?? error.signal : 0, stdout, stderr })
    })
  })
}

for (const runner of runners) {
  for (const node of nodes) {
    if (runner.only && !node.roles.includes(runner.only)) continue
    if (!supports(runner.engines, node.version)) {
      console.log(`# consumers: ${runner.name} does not support Node ${node.version} (its engines), so it does not run there`)
      continue
    }
    const checks = node.loop ? 'the class, its errors and the rc.8 loop in the caller\'s realm' : 'the class and its errors in the caller\'s realm (the rc.8 loop skipped: it needs Node >= 22.19)'
    for (const variant of runner.variants) {
      test(`${runner.name}${variant.label ? ` (${variant.label})` : ''} on ${node.label}: ${checks}`, async (t) => {
        const { dir, installSeconds, installedAt } = await project(runner)
        t.log(`${runner.name} project: npm install ${installSeconds.toFixed(1)} s, done at ${installedAt} s`)
        const reportPath = join(dir, `report-${slug(variant.label ?? 'run')}-${node.version}.json`)
        const result = await inTurn(async () => {
          const since = Date.now()
          const ran = await runNode(node.path, variant.args(reportPath), dir)
          t.log(`ran in ${seconds(since)} s, done at ${seconds(started)} s`)
          return ran
        })
        runs++
        const report = runner.read({ stdout: result.stdout, reportPath })
        const counts = { exitCode: result.code, passed: report.passed.length, failed: report.failed, skipped: report.skipped.length }
        // checks.mjs declares three tests: the class, its errors, and the loop (skipped below Node 22.19).
        const expected = { exitCode: 0, passed: node.loop ? 3 : 2, failed: [], skipped: node.loop ? 0 : 1 }
        if (!isDeepStrictEqual(counts, expected)) t.log(`${runner.name} output:\n${result.stdout.slice(-6000)}\n${result.stderr.slice(-3000)}`)
        t.deepEqual(counts, expected)
      })
    }
  }
}
