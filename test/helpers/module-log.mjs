// `node --import ./test/helpers/module-log.mjs ...`: every module loaded through the ES module
// loader is written to stderr as `module-loaded <url>` (startup-loading.test.ts).
import { register } from 'node:module';

register('./module-log-hooks.mjs', import.meta.url);
