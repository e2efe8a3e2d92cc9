// Runs one host's real client once, offline, with the hook configured, and returns what happened.
import { readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

import { clientBin } from '../../../scripts/clients.mjs'
import { scriptedServer } from './server.mjs'
import { newestJsonl, sandbox, spawnClient, tapped } from './sandbox.mjs'

/**
 * Runs `host` (claude-code.mjs, codex.mjs, gemini-cli.mjs) with the model's `script`.
 * - `config`: the guard's config, written to the project's `.repeat-tool-guard.json` (none: no file).
 * - `settings`: the hook's configuration snippet (default: the host's, from snippets.mjs).
 * - `tap`: keep each hook run's stdin and output (`hooks`; `hookStdins` their stdins).
 * - `box` and `resume`: run again in a previous run's sandbox, resuming its session.
 * Returns `{ requests, turns, stdout, stderr, exitCode, timedOut, transcriptPath, hooks, hookStdins, box, server }`;
 * the caller disposes of `box` (t.teardown(run.box.dispose)).
 */
export async function runClient(host, { script, config, settings = host.settings, prompt = 'Run the check until it passes.', tap = false, box, resume = false, final = 'done', timeoutMs } = {}) {
  const bin = await clientBin(host.client)
  box ??= await sandbox({ tap })
  if (config !== undefined) await writeFile(join(box.project, '.repeat-tool-guard.json'), JSON.stringify(config))
  const before = new Set(box.tap ? await readdir(box.tap) : [])
  const server = await scriptedServer(host.protocol, script, { final })
  try {
    await host.prepare(box, { settings, server })
    const env = { ...box.env, ...host.env(box, server) }
    const result = await spawnClient(bin, host.args({ prompt, resume, box }), { cwd: box.project, env, timeoutMs })
    const hooks = (await tapped(box))?.filter((run) => !before.has(run.name))
    return {
      ...result,
      requests: server.requests,
      turns: server.turns(),
      transcriptPath: await newestJsonl(host.transcripts(box)),
      hooks,
      hookStdins: hooks?.map((run) => run.stdin),
      box,
      server,
    }
  } finally {
    await server.close()
  }
}
