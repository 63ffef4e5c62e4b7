/**
 * Build step after `tsc` (beside bundle-typebox.ts): fastify and the CommonJS packages it
 * `require`s at load time (avvio, find-my-way, pino, semver, light-my-request …, about 85 files)
 * are bundled into one file, compiled with V8's code cache (vendor-with-code-cache.ts says how),
 * and the compiled modules import dist/vendor/fastify.js instead of the package. Node finds, reads
 * and compiles a CommonJS package file by file; on every `serve` that cost about 40 ms of CPU
 * before the first answer (docs/benchmarks/startup.md). The types still come from the package.
 *
 * Left outside, so that they still load only when first needed (and test/cli/startup-loading
 * sees when they do): the schema compilers (ajv, fast-json-stringify and fastify's wrappers,
 * loaded on a route's first schema) and pino's pretty printer and transports.
 */
import { vendorWithCodeCache } from './vendor-with-code-cache.js';

await vendorWithCodeCache({
  name: 'fastify',
  external: ['@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler', 'ajv', 'ajv-formats', 'fast-json-stringify', 'pino-pretty'],
  // A server started, asked three times (a route with a parameter, another, a 404) and closed.
  training: `
const fastify = vendored.default;
const app = fastify({ logger: { level: 'info', stream: { write() {} } } });
app.addHook('onRequest', async () => {});
app.addHook('onSend', async (_request, _reply, payload) => payload);
await app.register(async (scope) => {
  scope.get('/things/:id', async (request) => ({ id: request.params.id }));
}, { prefix: '/api' });
app.get('/', async (_request, reply) => reply.type('application/json').send('{}'));
await app.ready();
await app.listen({ host: '127.0.0.1', port: 0 });
const base = 'http://127.0.0.1:' + app.server.address().port;
for (const path of ['/api/things/1', '/', '/nothing']) await (await fetch(base + path)).text();
await app.close();
`,
});
