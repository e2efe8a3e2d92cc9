// The hook's configuration for each host, as the docs give it: the host suites run these strings
// as they are (written to the file named), so the docs and the tests can be compared.

// Claude Code: the project's `.claude/settings.json`.
export const CLAUDE_CODE_SETTINGS = '{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"dsh-repeat-tool-guard hook"}]}],"PostToolUse":[{"hooks":[{"type":"command","command":"dsh-repeat-tool-guard hook"}]}],"PostToolUseFailure":[{"hooks":[{"type":"command","command":"dsh-repeat-tool-guard hook"}]}],"UserPromptSubmit":[{"hooks":[{"type":"command","command":"dsh-repeat-tool-guard hook"}]}],"SessionEnd":[{"hooks":[{"type":"command","command":"dsh-repeat-tool-guard hook"}]}]}}'

// Codex CLI: `~/.codex/hooks.json` (`$CODEX_HOME/hooks.json`). Codex 0.169 has no
// PostToolUseFailure: a failed command is a PostToolUse with the failure in its output.
export const CODEX_HOOKS = '{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"dsh-repeat-tool-guard hook"}]}],"PostToolUse":[{"hooks":[{"type":"command","command":"dsh-repeat-tool-guard hook"}]}],"UserPromptSubmit":[{"hooks":[{"type":"command","command":"dsh-repeat-tool-guard hook"}]}],"SessionEnd":[{"hooks":[{"type":"command","command":"dsh-repeat-tool-guard hook"}]}]}}'

// Gemini CLI: the `hooks` of `~/.gemini/settings.json` (merged with the user's other settings).
// Tool events take a matcher (a regular expression over tool names); lifecycle events need none.
export const GEMINI_SETTINGS = '{"hooks":{"BeforeTool":[{"matcher":".*","hooks":[{"type":"command","command":"dsh-repeat-tool-guard hook"}]}],"AfterTool":[{"matcher":".*","hooks":[{"type":"command","command":"dsh-repeat-tool-guard hook"}]}],"BeforeAgent":[{"hooks":[{"type":"command","command":"dsh-repeat-tool-guard hook"}]}],"SessionEnd":[{"hooks":[{"type":"command","command":"dsh-repeat-tool-guard hook"}]}]}}'
