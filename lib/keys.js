// The config keys and reminder tiers the guard knows, rendered from the core, with no schema
// library: what the hook command and the replay read without loading the plugin's config schema.

/** Every config key the guard knows, in the order it validates them. */
// BEGIN KEYS: rendered from core/src/options.rs, checked by core/tests/options.rs
export const KNOWN_KEYS = ['thresholds', 'argumentsPreviewChars', 'include', 'exclude', 'profile', 'cycles', 'sameResultOnly', 'overrides', 'repeatEvery', 'ignoreArguments', 'similar', 'noProgress', 'failures', 'perResponse', 'stopAt', 'resume']
// END KEYS

/** The keys that decide which calls are identical (what a run is); the others decide where or whether reminders come. */
// BEGIN IDENTITY: rendered from core/src/options.rs, checked by core/tests/options.rs
export const IDENTITY_KEYS = ['include', 'exclude', 'sameResultOnly', 'ignoreArguments']
// END IDENTITY

/** Every reminder tier, in the order stats and reports list them; each tier's symbol in a reminder's summary; the tiers whose reminder ends the agent's turn. */
// BEGIN TIERS: rendered from core/src/reminders.rs, checked by core/tests/options.rs
export const TIERS = ['gentle', 'detailed', 'cycle', 'similar', 'noProgress', 'failure', 'stop']
export const SYMBOLS = { gentle: '×', detailed: '×', cycle: '×', similar: '≈', noProgress: '⟳', failure: '✗', stop: '×' }
export const ENDS_TURN = ['stop']
// END TIERS

/** Whether the plugin ends the agent's turn with `reminder` (the hard stop), as its tier declares. */
export const endsTurn = (reminder) => ENDS_TURN.includes(reminder.tier)

/**
 * The keys of `config` the guard does not know (a typo such as `thresholdz`), each warned about and ignored.
 * None for a config that is not an object, an array included: the guard rejects it with one message of its own.
 */
export function unknownKeys(config) {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) return []
  return Object.keys(config).filter((key) => !KNOWN_KEYS.includes(key))
}

/** The warning for an unknown key, in the words the plugin logs it. */
export function unknownKeyWarning(key) {
  return `unknown config key ${JSON.stringify(key)} is ignored (known keys: ${KNOWN_KEYS.join(', ')})`
}
