// Claude Code 2.1.328 run offline: `claude -p` against the scripted Anthropic server, the hook
// configured in the project's `.claude/settings.json`.
import { randomUUID } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

import * as anthropic from './anthropic.mjs'
import { CLAUDE_CODE_SETTINGS } from './snippets.mjs'

export const claudeCode = {
  name: 'claude-code',
  client: 'claude-code',
  protocol: anthropic,
  settings: CLAUDE_CODE_SETTINGS,
  /** The model's shell call; the hook sees the same tool and arguments. */
  shell: (command) => ({ name: 'Bash', args: { command, description: 'Run the check' } }),
  seen: (command) => ({ tool: 'Bash', args: { command, description: 'Run the check' } }),
  /** A hook's text as the model reads it: as it was given. */
  shown: (text) => text,
  async prepare(box, { settings }) {
    await mkdir(join(box.project, '.claude'), { recursive: true })
    await writeFile(join(box.project, '.claude', 'settings.json'), settings)
  },
  env: (box, server) => ({
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: 'sk-offline',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
  }),
  // A fixed session id, so a second run can resume the first one's session.
  args({ prompt, resume, box }) {
    box.session ??= randomUUID()
    // As root Claude Code refuses --dangerously-skip-permissions: Bash is allowed by name.
    const common = ['-p', prompt, '--allowedTools', 'Bash', '--output-format', 'json']
    return resume ? [...common, '--resume', box.session] : [...common, '--session-id', box.session]
  },
  transcripts: (box) => join(box.home, '.claude', 'projects'),
}
