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

/** Keeps every call's arguments, and their text (at least 16 KB), for ever: memory that grows with the calls. */
export function plantLeak(ctx) {
  const kept = []
  ctx.on('tools/post-execute', (exec, _result, next) => {
    kept.push(exec.arguments, `${exec.callId} ${JSON.stringify(exec.arguments) ?? ''}`.padEnd(16_384, '.'))
    return next()
  })
}
