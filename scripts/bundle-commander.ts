/**
 * Build step after `tsc`: commander (the command line's parser, seven CommonJS files, loaded by
 * every command) bundled into one file compiled with V8's code cache (vendor-with-code-cache.ts
 * says how); the compiled modules import dist/vendor/commander.js instead of the package. Loading
 * the package took about 17 ms of CPU of each launch (docs/benchmarks/startup.md).
 */
import { vendorWithCodeCache } from './vendor-with-code-cache.js';

await vendorWithCodeCache({
  name: 'commander',
  external: [],
  // A command with subcommands, options of each kind, arguments parsed, a refusal and the help text.
  training: `
const { Command, Option, InvalidArgumentError } = vendored;
const program = new Command('tool').exitOverride().configureOutput({ writeOut() {}, writeErr() {} });
const sub = program.command('serve').argument('<dir...>', 'storages').option('--port <n>', 'port', (v) => {
  if (!/^\\d+$/.test(v)) throw new InvalidArgumentError('not a number');
  return Number(v);
}, 0);
sub.addOption(new Option('--format <f>', 'format').choices(['json', 'text']).default('text').env('TOOL_FORMAT'));
sub.option('--no-follow', 'do not follow').option('-q, --quiet', 'quiet').action(() => {});
program.parse(['serve', 'a', '--port', '8080', '--format', 'json', '--no-follow'], { from: 'user' });
try {
  program.parse(['serve', 'a', '--port', 'x'], { from: 'user' });
} catch {
  // Refused, as a wrong option value is.
}
sub.helpInformation();
program.helpInformation();
`,
});
