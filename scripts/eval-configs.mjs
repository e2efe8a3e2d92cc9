// The configs `npm run eval` (scripts/eval.mjs) measures, apart so that its test can read them.

/** Our configs, as a cordis.yml would give them: add a detection here to measure it (the first, the defaults, is the one the reference plugin is checked against). */
export const CONFIGS = [
  { label: 'defaults (3, 5, 8)', config: {} },
  { label: 'similar (5, 0.85)', config: { similar: { minCalls: 5, similarity: 0.85 } } },
  { label: 'similar (8, 0.9)', config: { similar: { minCalls: 8, similarity: 0.9 } } },
  { label: 'cycles (period 3, 3 times)', config: { cycles: { maxPeriod: 3, repeats: 3 } } },
  { label: 'sameResultOnly', config: { sameResultOnly: true } },
  { label: 'repeatEvery 2', config: { repeatEvery: 2 } },
  { label: 'noProgress (4 in 10)', config: { noProgress: { minCalls: 4, window: 10 } } },
  { label: 'noProgress (5 in 12)', config: { noProgress: { minCalls: 5, window: 12 } } },
  { label: 'noProgress (6 in 16)', config: { noProgress: { minCalls: 6, window: 16 } } },
  { label: 'noProgress (5 in 24)', config: { noProgress: { minCalls: 5, window: 24 } } },
  { label: 'failures (3 in 6)', config: { failures: { minCalls: 3, window: 6 } } },
  { label: 'failures (3 in 8)', config: { failures: { minCalls: 3, window: 8 } } },
  { label: 'failures (3 in 12)', config: { failures: { minCalls: 3, window: 12 } } },
  { label: 'failures (4 in 8)', config: { failures: { minCalls: 4, window: 8 } } },
  { label: 'perResponse', config: { perResponse: true } },
  { label: "profile 'recommended'", config: { profile: 'recommended' } },
]
