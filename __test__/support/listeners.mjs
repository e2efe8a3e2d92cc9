// Installs a cordis plugin on a minimal context that only records its listeners, so the
// differential fuzzer and the benchmark can call this plugin's and the reference's listeners
// directly, with the same inputs.
export function listenersOf(plugin, config) {
  const listeners = {}
  const ctx = {
    on: (event, fn) => { listeners[event] = fn },
    logger: () => ({ warn: () => {} }),
    effect: (execute) => execute(),
    // The plugin announces each delivered reminder (repeat-tool-guard/reminder); nobody listens here.
    parallel: () => Promise.resolve(),
  }
  plugin.apply(ctx, plugin.Config(config))
  return listeners
}

/** Freezes a value and everything under it, as the loop freezes parsed arguments. */
export function deepFreeze(value) {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze(value[key])
  }
  return value
}
