// The hook's configuration for each host, as docs/HOSTS.md gives it: the host suites run these
// snippets as the page writes them (each a JSON block after a `<!-- snippet: HOST -->` line), so
// what a user copies is what was tested.
import { markedBlocks } from '../../support/docs.mjs'

/** Each host's snippet on docs/HOSTS.md, as its text. */
export const SNIPPETS = markedBlocks('docs/HOSTS.md', 'snippet', 'json')

// Claude Code: the project's `.claude/settings.json`.
export const CLAUDE_CODE_SETTINGS = SNIPPETS['claude-code']
// Codex CLI: `~/.codex/hooks.json` (`$CODEX_HOME/hooks.json`).
export const CODEX_HOOKS = SNIPPETS.codex
// Gemini CLI: the `hooks` of `~/.gemini/settings.json` (merged with the user's other settings).
export const GEMINI_SETTINGS = SNIPPETS.gemini
