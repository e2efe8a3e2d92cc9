import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['vitest.test.mjs'],
    // Symbol.dispose for the vm pools on Node 22 (vmThreads, vmForks); the other pools have it.
    setupFiles: ['./dispose.mjs'],
  },
})
