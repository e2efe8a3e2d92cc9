// Codex CLI 0.169.0 run offline: `codex exec` against the scripted Responses server, the hook
// configured in `$CODEX_HOME/hooks.json` (CODEX_HOME is ~/.codex in the temp home).
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

import * as responses from './responses.mjs'
import { CODEX_HOOKS } from './snippets.mjs'

const codexHome = (box) => join(box.home, '.codex')

export const codex = {
  name: 'codex',
  client: 'codex',
  protocol: responses,
  settings: CODEX_HOOKS,
  // The model calls `exec_command { cmd }`; Codex hands hooks `Bash { command }`.
  shell: (command) => ({ name: 'exec_command', args: { cmd: command } }),
  seen: (command) => ({ tool: 'Bash', args: { command } }),
  shown: (text) => text,
  async prepare(box, { settings, server }) {
    await mkdir(codexHome(box), { recursive: true })
    await writeFile(join(codexHome(box), 'config.toml'), [
      'model = "scripted"',
      'model_provider = "scripted"',
      '[model_providers.scripted]',
      'name = "scripted"',
      `base_url = "${server.url}/v1"`,
      'wire_api = "responses"',
      'env_key = "SCRIPTED_KEY"',
      '',
    ].join('\n'))
    await writeFile(join(codexHome(box), 'hooks.json'), settings)
  },
  env: (box) => ({ CODEX_HOME: codexHome(box), SCRIPTED_KEY: 'offline' }),
  // Without --dangerously-bypass-hook-trust Codex skips a hook nobody reviewed.
  args({ prompt, resume }) {
    const flags = ['--skip-git-repo-check', '--dangerously-bypass-hook-trust', '--dangerously-bypass-approvals-and-sandbox']
    return resume ? ['exec', 'resume', '--last', ...flags, prompt] : ['exec', ...flags, prompt]
  },
  transcripts: (box) => join(codexHome(box), 'sessions'),
}
