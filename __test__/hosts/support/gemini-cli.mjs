// Gemini CLI 0.61.0 run offline: `gemini -p` against the scripted Gemini server, the hook
// configured in `~/.gemini/settings.json` beside the settings an offline run needs.
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

import * as gemini from './gemini.mjs'
import { GEMINI_SETTINGS } from './snippets.mjs'

// An API key (no login), no folder-trust prompt, and Gemini CLI's own loop detector off: it ends
// the turn at 5 identical calls, which would hide what the hook does at 5 and beyond.
const BASE_SETTINGS = {
  security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
  model: { disableLoopDetection: true },
}

export const geminiCli = {
  name: 'gemini',
  client: 'gemini',
  protocol: gemini,
  settings: GEMINI_SETTINGS,
  shell: (command) => ({ name: 'run_shell_command', args: { command } }),
  seen: (command) => ({ tool: 'run_shell_command', args: { command } }),
  // Gemini CLI escapes < and > in a hook's additionalContext (HookOutput.getAdditionalContext)
  // before wrapping it in <hook_context>: the model reads `>>` as `&gt;&gt;`.
  shown: (text) => text.replace(/</g, '&lt;').replace(/>/g, '&gt;'),
  async prepare(box, { settings }) {
    await mkdir(join(box.home, '.gemini'), { recursive: true })
    await writeFile(join(box.home, '.gemini', 'settings.json'), JSON.stringify({ ...BASE_SETTINGS, ...JSON.parse(settings) }, null, 2))
  },
  env: (box, server) => ({ GEMINI_API_KEY: 'offline', GOOGLE_GEMINI_BASE_URL: server.url }),
  args: ({ prompt }) => ['-p', prompt, '--yolo'],
  transcripts: (box) => join(box.home, '.gemini', 'tmp'),
}
