// ava's command line with scripts/ava-tap-guard.mjs keeping its TAP reporter from losing failures
// (a timeout, a process.exit(), an error the reporter cannot write). Used by scripts/test.sh.
// Usage: node scripts/ava.mjs <ava's arguments>
import { register } from 'node:module'

register('./ava-tap-guard.mjs', import.meta.url)
await import(new URL('../node_modules/ava/entrypoints/cli.mjs', import.meta.url).href)
