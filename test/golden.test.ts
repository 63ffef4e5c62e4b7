import { Agent } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/http/app.js';
import { compareWithCase, CORPORA, failingCases, loadCases, type RecordedCase } from './helpers/corpora/conformance.js';
import { rawRequest } from './helpers/serving/raw-http.js';
import { graphsBuilt, registeredStorage, type RegisteredStorage } from './helpers/serving/registered-storage.js';
import { listenOnLoopback } from './helpers/serving/loopback.js';

/**
 * Replays every recorded request of each Java generation's REST service against our HTTP server,
 * over a real socket, and compares status, content type and body bytes. The instance is not
 * given: the storage's family decides it, as `serve` does without `--instance`.
 */
const STORAGES = CORPORA.flatMap((corpus) => corpus.storages.map((name) => ({ corpus, name, label: `${corpus.generation} ${name}` })));

describe.each(STORAGES)('conformance: $label', ({ corpus, name }) => {
  const { header, cases } = loadCases(join(corpus.dir, 'cases', `${name}.jsonl`));
  const storageDir = join(corpus.dir, 'storages', name);
  let registered: RegisteredStorage;
  let app: ReturnType<typeof buildApp>;
  let port: number;
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });

  // Served with our own API and its graph index present, as `serve` does: the Java routes must not notice.
  beforeAll(async () => {
    registered = await registeredStorage(storageDir);
    await graphsBuilt(registered.registry);
    app = buildApp(registered.storage, { instance: registered.storage.family.defaultInstance, api: registered.registry });
    port = await listenOnLoopback(app);
  });
  afterAll(async () => {
    agent.destroy();
    await app.close();
    await registered.close();
  });

  it('is served under the default instance of its family', () => {
    expect(registered.storage.family.defaultInstance).toBe(header.instance);
  });

  const kinds = [...new Set(cases.map((c) => c.kind))];
  it.each(kinds)('%s', async (kind) => {
    const selected = cases.filter((c) => c.kind === kind);
    const failures = await failingCases(selected, replay);
    expect(failures.slice(0, 10), `${failures.length} of ${selected.length} cases fail`).toEqual([]);
  });

  async function replay(c: RecordedCase): Promise<string | undefined> {
    const headers: Record<string, string> = { Host: header.host, ...(c.headers ?? {}) };
    const response = await rawRequest(agent, port, c.method, c.request, headers);
    return compareWithCase(c, header.storageDir, storageDir, response);
  }
});
