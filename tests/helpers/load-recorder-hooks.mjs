// Module-resolution hook registered by load-recorder.mjs: appends `esm <resolved url>` for every
// module resolved (static and dynamic imports alike) to the log file given at registration.
import { appendFileSync } from "node:fs";

let log = null;

/** Receives `{ log }` from `register()`. */
export function initialize(data) {
  log = data?.log ?? null;
}

/** Pass-through resolve that records the resolved URL. */
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (log) appendFileSync(log, `esm ${r.url}\n`);
  return r;
}
