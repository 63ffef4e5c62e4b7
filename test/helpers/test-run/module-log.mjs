// `node --import ./test/helpers/test-run/module-log.mjs ...`: every module loaded is written to stderr as
// `module-loaded <url>` (startup-loading.test.ts): ES modules through the loader hook, CommonJS
// modules (which a package `require`s from its own files, unseen by ES loader hooks) as they are
// compiled.
import { writeSync } from 'node:fs';
import Module, { register } from 'node:module';
import { pathToFileURL } from 'node:url';

register('./module-log-hooks.mjs', import.meta.url);

const compileJs = Module._extensions['.js'];
Module._extensions['.js'] = function logged(module, filename) {
  writeSync(2, `module-loaded ${pathToFileURL(filename).href}\n`);
  return compileJs.call(this, module, filename);
};
