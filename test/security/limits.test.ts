import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorHeaderValue } from '../../src/http/java/java-service.js';
import { objectDescriptionBytes } from '../../src/inspect/description-bytes.js';
import { RequestBudget, RequestLimitError } from '../../src/http/guard/limits.js';
import { UTC } from '../../src/javatext/java-time-zones.js';
import { describeObject, objectDescriptionJson, type DescribeOptions } from '../../src/inspect/describe-object.js';
import { javaUtf8 } from '../../src/inspect/gson-json.js';
import { FormatError } from '../../src/errors.js';
import { Storage } from '../../src/storage/storage.js';
import { CONFORMANCE_DIR, loadCases, STORAGE_NAMES } from '../helpers/corpora/conformance.js';
import { corpusStorage, send, startServer, type TestServer } from './server.js';

const BIG_LIST = '1000000000000000071';
const UNBOUNDED: DescribeOptions = {
  fixedOffset: 0,
  fixedLength: 2147483647,
  variableOffset: 0,
  variableLength: 2147483647,
  valueLength: 2147483647,
  references: false,
  timeZone: UTC,
};

/** Object ids of a corpus storage: those the recorded cases ask for with status 200. */
function entityIds(name: string): bigint[] {
  const { cases } = loadCases(join(CONFORMANCE_DIR, 'cases', `${name}.jsonl`));
  const ids = new Set<bigint>();
  for (const c of cases) {
    const m = /^\/microstream\/object\/(\d+)$/.exec(c.request);
    if (m !== null && c.kind === 'object' && c.status === 200) ids.add(BigInt(m[1]!));
  }
  return [...ids];
}

describe('bounded JSON writer', () => {
  it.each(STORAGE_NAMES)('writes the same bytes as objectDescriptionJson for every object of %s (with and without references)', async (name) => {
    const storage = await Storage.open(corpusStorage(name));
    try {
      const budget = new RequestBudget(256 * 1024 * 1024, 0);
      let compared = 0;
      for (const id of entityIds(name)) {
        for (const references of [false, true]) {
          let description;
          try {
            description = await describeObject(storage, id, { ...UNBOUNDED, references });
          } catch {
            continue; // Java's 500s (NaN wrappers and the like)
          }
          expect(objectDescriptionBytes(description, budget).equals(javaUtf8(objectDescriptionJson(description))), `object ${id}`).toBe(true);
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(40);
    } finally {
      await storage.close();
    }
  });
});

describe('response size limit', () => {
  let largest = { bytes: 0, id: '', storage: '' };

  it('the largest answer of the corpus (every object, references=true, unbounded windows) is far below the default limit', async () => {
    for (const name of STORAGE_NAMES) {
      const server = await startServer(corpusStorage(name));
      try {
        for (const id of entityIds(name)) {
          const answer = await send(server.port, 'GET', `/microstream/object/${id}?references=true`);
          expect([200, 500]).toContain(answer.status);
          if (answer.body.length > largest.bytes) largest = { bytes: answer.body.length, id: String(id), storage: name };
        }
      } finally {
        await server.close();
      }
    }
    console.log(`largest corpus answer: ${largest.bytes} bytes (${largest.storage} object ${largest.id}?references=true)`);
    expect(largest.bytes).toBeLessThan(256 * 1024 * 1024 / 16);
  });

  describe('with a limit', () => {
    let server: TestServer;
    let fullSize: number;
    let reads = 0;
    beforeAll(async () => {
      server = await startServer(corpusStorage('collections'));
      const full = await send(server.port, 'GET', `/microstream/object/${BIG_LIST}?references=true`);
      expect(full.status).toBe(200);
      fullSize = full.body.length;
      await server.close();
      const storage = await Storage.open(corpusStorage('collections'));
      const counting = {
        get dictionary() {
          return storage.dictionary;
        },
        dictionaryBytes: storage.dictionaryBytes,
        family: storage.family,
        rootObjectId: storage.rootObjectId,
        directory: storage.directory,
        channels: storage.channels,
        readEntity: (id: bigint) => {
          reads++;
          return storage.readEntity(id);
        },
      };
      const { buildApp } = await import('../../src/http/app.js');
      const app = buildApp(counting, { instance: 'microstream', maxResponseBytes: 200_000 });
      await app.listen({ host: '127.0.0.1', port: 0 });
      server = {
        storage,
        app,
        port: (app.server.address() as { port: number }).port,
        close: async () => {
          await app.close();
          await storage.close();
        },
      };
    });
    afterAll(() => server.close());

    it('refuses a larger answer with 413, a clear text and the error header, before describing everything', async () => {
      expect(fullSize).toBeGreaterThan(1_000_000);
      reads = 0;
      const answer = await send(server.port, 'GET', `/microstream/object/${BIG_LIST}?references=true`);
      expect(answer.status).toBe(413);
      expect(answer.headers['content-type']).toBe('text/plain;charset=utf-8');
      expect(answer.body.toString()).toMatch(/larger than the response size limit of 200000 bytes \(--max-response-bytes\)/);
      expect(answer.headers['x-storage-inspector-error']).toMatch(/^RESPONSE_TOO_LARGE: the answer would be larger than/);
      // 50,000 references, but the lower bounds stop the description long before.
      expect(reads).toBeLessThan(5000);
    });

    it('answers below the limit as before', async () => {
      const answer = await send(server.port, 'GET', `/microstream/object/${BIG_LIST}?references=true&variableLength=100`);
      expect(answer.status).toBe(200);
      expect(answer.headers['x-storage-inspector-error']).toBeUndefined();
    });

    it('the limit is exact: an answer of exactly the limit passes, one byte less refuses', async () => {
      const storage = server.storage;
      const description = await describeObject(storage, BigInt(BIG_LIST), UNBOUNDED);
      const size = javaUtf8(objectDescriptionJson(description)).length;
      expect(objectDescriptionBytes(description, new RequestBudget(size, 0)).length).toBe(size);
      expect(() => objectDescriptionBytes(description, new RequestBudget(size - 1, 0))).toThrow(RequestLimitError);
    });
  });
});

describe('request timeout', () => {
  let server: TestServer;
  let reads = 0;
  let lastRead: Promise<unknown> = Promise.resolve();
  beforeAll(async () => {
    const storage = await Storage.open(corpusStorage('collections'));
    const slow = {
      get dictionary() {
        return storage.dictionary;
      },
      dictionaryBytes: storage.dictionaryBytes,
      family: storage.family,
      rootObjectId: storage.rootObjectId,
      directory: storage.directory,
      channels: storage.channels,
      readEntity: async (id: bigint) => {
        reads++;
        // A slow storage: each read takes 20 ms.
        const read = new Promise((r) => setTimeout(r, 20)).then(() => storage.readEntity(id));
        lastRead = read.catch(() => undefined);
        return read;
      },
    };
    const { buildApp } = await import('../../src/http/app.js');
    const app = buildApp(slow, { instance: 'microstream', requestTimeoutMs: 300 });
    await app.listen({ host: '127.0.0.1', port: 0 });
    server = { storage, app, port: (app.server.address() as { port: number }).port, close: async () => void (await app.close(), await storage.close()) };
  });
  afterAll(() => server.close());

  it('answers 503 with the error header once the timeout has passed, and the work stops', async () => {
    const answer = await send(server.port, 'GET', `/microstream/object/${BIG_LIST}?references=true`);
    expect(answer.status).toBe(503);
    expect(answer.body.toString()).toMatch(/took longer than the request timeout of 300 ms \(--request-timeout\)/);
    expect(answer.headers['x-storage-inspector-error']).toMatch(/^REQUEST_TIMEOUT: /);
    const readsThen = reads;
    // Work that went on would start a read as each one ends: let three reads end (if started).
    for (let i = 0; i < 3; i++) {
      await lastRead;
      await new Promise((r) => setImmediate(r));
    }
    expect(reads - readsThen).toBeLessThanOrEqual(1);
    // Quick requests are unaffected.
    expect((await send(server.port, 'GET', '/microstream/root')).status).toBe(200);
  });

  it('sets the HTTP server timeouts', () => {
    expect(server.app.server.requestTimeout).toBe(300);
    expect(server.app.server.timeout).toBe(5300);
  });
});

describe('X-Storage-Inspector-Error', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(corpusStorage('primitives'));
  });
  afterAll(() => server.close());

  it("explains Java's 500 answers without changing them", async () => {
    const nan = await send(server.port, 'GET', '/microstream/object/1000000000000000037');
    expect(nan.status).toBe(500);
    expect(nan.body.toString()).toBe('<html><body><h2>500 Internal Server Error</h2></body></html>');
    expect(nan.headers['x-storage-inspector-error']).toMatch(/^FORMAT_JAVA_VALUE: java\.lang\.Float .*NaN/);
    const query = await send(server.port, 'GET', '/microstream/object/1000000000000000028?valueLength=%C3%28');
    expect(query.status).toBe(500);
    expect(query.headers['x-storage-inspector-error']).toBe('QUERY_DECODE: invalid UTF-8 in query string');
    const constant = await send(server.port, 'GET', '/microstream/object/9000000000000099999');
    expect(constant.headers['x-storage-inspector-error']).toMatch(/^FORMAT_JAVA_VALUE: constant id 9000000000000099999 is not registered/);
    const ok = await send(server.port, 'GET', '/microstream/root');
    expect(ok.headers['x-storage-inspector-error']).toBeUndefined();
  });

  it('is one line of printable ASCII, at most 500 characters', () => {
    const error = new FormatError('FORMAT_BAD_RECORD', `bad\r\nthing \u00e9\u2028\u0000 ${'x'.repeat(1000)}`, { file: '/data/channel_0/channel_0_1.dat', offset: 42 });
    const value = errorHeaderValue(error);
    expect(value).toMatch(/^FORMAT_BAD_RECORD: \/data\/channel_0\/channel_0_1\.dat at offset 42: bad thing \?\?\? x+\.\.\.$/);
    expect(value.length).toBe(500);
    expect(errorHeaderValue(new TypeError('x is undefined'))).toBe('INTERNAL: x is undefined');
  });
});
