// Loaded with --import: appends every module URL the ES module loader resolves to the file in
// TRACE_IMPORTS, one a line (the hooks run on the loader's own thread, so they write the file).
import { register } from 'node:module'

register(`data:text/javascript,${encodeURIComponent(`
import { appendFileSync } from 'node:fs'
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context)
  appendFileSync(${JSON.stringify(process.env.TRACE_IMPORTS)}, resolved.url + '\\n')
  return resolved
}`)}`)
