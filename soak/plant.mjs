// Faults planted on purpose, to show that the soak catches them (SOAK_PLANT=drop|leak; off by
// default). Neither touches the plugin: each is a listener of the soak's own, beside it.

/** Drops every 25th reminder of this plugin before it reaches the model: a lost reminder. */
export function plantDrop(ctx) {
  let seen = 0
  ctx.on('tools/post-execute', async (_exec, _result, next) => {
    const decision = await next()
    const first = decision.additionalContexts?.[0]
    if (first?.source?.plugin === 'repeat-tool-guard' && ++seen % 25 === 0) {
      return { ...decision, additionalContexts: decision.additionalContexts.slice(1) }
    }
    return decision
  })
}

/**
 * Keeps every call's arguments, and 16 KB filled with their text, for ever: memory that grows with
 * the calls. (A buffer, not a padded string: V8 builds `padEnd`'s filler from shared pieces, so
 * such a string keeps well under 1 KB.)
 */
export function plantLeak(ctx) {
  const kept = []
  ctx.on('tools/post-execute', (exec, _result, next) => {
    kept.push(exec.arguments, Buffer.alloc(16_384, `${exec.callId} ${JSON.stringify(exec.arguments) ?? ''} `))
    return next()
  })
}
