/**
 * Big object answers, as Java recorded them. An answer describing BIG_ANSWER_READS objects or more
 * is not built at once: its first run stops as soon as it turns out big, the request waits for
 * admission outside the storage's consistent view (big-answers.ts) and runs again. Whichever
 * dialect answers, the bytes must be those of an answer built in one go: here the GigaMap corpus's
 * recorded `references=true` answers (1024 described objects each), asked several times at once so
 * that some wait for a building slot, compared with the SparkJava bodies (Micronaut's as JSON).
 */
import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { BIG_ANSWER_READS, BIG_ANSWER_SLOTS } from '../../../src/http/guard/big-answers.js';
import { defaultInstance, type Dialect } from '../../../src/http/java/dialects.js';
import { Storage } from '../../../src/storage/storage.js';
import { compareWithCase, expectedBody, loadCases, type RecordedCase } from '../../helpers/corpora/conformance.js';
import { rawRequest, type RawResponse } from '../../helpers/serving/raw-http.js';

const CORPUS = join(import.meta.dirname, '..', '..', 'fixtures', 'conformance-es-gigamap');
const STORAGE_DIR = join(CORPUS, 'storages', 'gigamap');
const { header, cases } = loadCases(join(CORPUS, 'cases', 'big-answers.jsonl'));
/** The recorded answers that describe at least BIG_ANSWER_READS objects. */
const BIG = cases.filter((c) => c.status === 200 && /[?&]references=true/.test(c.request) && describedObjects(c) >= BIG_ANSWER_READS);
/** Each asked this many times at once: more requests than building slots. */
const COPIES = BIG_ANSWER_SLOTS + 2;

function describedObjects(c: RecordedCase): number {
  const references = (JSON.parse(expectedBody(c).toString('utf8')) as { references: unknown[] | null }).references;
  return 1 + (references?.length ?? 0);
}

describe.each<Dialect>(['spark', 'javalin', 'micronaut'])('big object answers, --dialect %s', (dialect) => {
  let storage: Storage;
  let app: FastifyInstance;
  let port: number;
  const agent = new Agent({ keepAlive: true, maxSockets: 2 * COPIES });

  beforeAll(async () => {
    storage = await Storage.open(STORAGE_DIR);
    app = buildApp(storage, { instance: defaultInstance(dialect, storage.family), dialect });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    agent.destroy();
    await app.close();
    await storage.close();
  });

  it('the corpus has big answers to ask for', () => {
    expect(BIG.map((c) => c.request)).toEqual([
      '/store-data/object/1000000000000000065?references=true',
      '/store-data/object/1000000000000000065?references=true&fixedOffset=1&fixedLength=2',
      '/store-data/object/1000000000000000065?references=true&valueLength=2',
    ]);
  });

  it('are the recorded bytes, also when admitted after waiting', async () => {
    const asked = BIG.flatMap((c) => Array.from({ length: COPIES }, () => c));
    const instance = defaultInstance(dialect, storage.family);
    const answers = await Promise.all(
      asked.map((c) => rawRequest(agent, port, 'GET', c.request.replace('/store-data/', `/${instance}/`), { Host: header.host })),
    );
    expect(answers).toHaveLength(BIG.length * COPIES);
    answers.forEach((answer, i) => {
      const c = asked[i]!;
      if (dialect === 'micronaut') expect(micronautView(answer), c.request).toEqual(micronautView({ status: c.status, contentType: c.contentType, body: expectedBody(c) }));
      else expect(compareWithCase(c, header.storageDir, STORAGE_DIR, answer), c.request).toBeUndefined();
    });
  });
});

/** Micronaut writes the same description through Jackson (no HTML escaping): compared as JSON. */
function micronautView(answer: RawResponse): unknown {
  return { status: answer.status, json: JSON.parse(answer.body.toString('utf8').replace(/@[0-9a-f]{1,8}"/g, '@*"')) as unknown };
}
