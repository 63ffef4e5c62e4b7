// The loader hook of module-log.mjs. Synchronous writes: a line is out even if the process exits at once.
import { writeSync } from 'node:fs';

export async function load(url, context, nextLoad) {
  writeSync(2, `module-loaded ${url}\n`);
  return nextLoad(url, context);
}
