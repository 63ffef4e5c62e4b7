import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import type { Storage } from '../../../src/storage/storage.js';
import { compareWithCase, failingCases, type CaseHeader, type RecordedCase } from '../corpora/conformance.js';
import { rawRequest } from './raw-http.js';

/** The storage a replay serves, once its beforeAll has opened it. */
export interface ServedStorage {
  readonly storage: Storage;
}

/**
 * Inside a describe: opens the storage (open), serves it as the recording's instance on
 * 127.0.0.1, and replays every recorded case over a real socket, one test per kind of request
 * (status, content type and body bytes). afterClose runs once server and storage are closed.
 */
export function replayRecordedCases(
  header: CaseHeader,
  cases: readonly RecordedCase[],
  open: () => Promise<Storage>,
  afterClose?: () => Promise<void>,
): ServedStorage {
  let storage: Storage | undefined;
  let app: ReturnType<typeof buildApp> | undefined;
  let port = 0;
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });

  beforeAll(async () => {
    storage = await open();
    app = buildApp(storage, { instance: header.instance });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    agent.destroy();
    await app?.close();
    await storage?.close();
    await afterClose?.();
  });

  async function replay(c: RecordedCase): Promise<string | undefined> {
    const headers: Record<string, string> = { Host: header.host, ...(c.headers ?? {}) };
    const response = await rawRequest(agent, port, c.method, c.request, headers);
    return compareWithCase(c, header.storageDir, header.storageDir, response);
  }

  const kinds = [...new Set(cases.map((c) => c.kind))];
  it.each(kinds)('%s', async (kind) => {
    const selected = cases.filter((c) => c.kind === kind);
    const failures = await failingCases(selected, replay);
    expect(failures.slice(0, 10), `${failures.length} of ${selected.length} cases fail`).toEqual([]);
  });

  return {
    get storage(): Storage {
      if (storage === undefined) throw new Error('the storage is opened in beforeAll');
      return storage;
    },
  };
}
