import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { buildApp, type AppOptions } from '../../src/http/app.js';
import { Storage } from '../../src/storage/storage.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';
import { listenOnLoopback } from '../helpers/serving/loopback.js';

/** A storage served on a loopback port, for the security and robustness tests. */
export interface TestServer {
  readonly storage: Storage;
  readonly app: ReturnType<typeof buildApp>;
  readonly port: number;
  close(): Promise<void>;
}

export function corpusStorage(name: string): string {
  return join(CONFORMANCE_DIR, 'storages', name);
}

export async function startServer(directory: string, options: Partial<AppOptions> = {}): Promise<TestServer> {
  const storage = await Storage.open(directory);
  const app = buildApp(storage, { instance: 'microstream', ...options });
  const port = await listenOnLoopback(app);
  return {
    storage,
    app,
    port,
    close: async () => {
      await app.close();
      await storage.close();
    },
  };
}

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Every value of a header as sent (Node joins repeated headers in `headers`). */
  all(name: string): string[];
  readonly body: Buffer;
}

/** One request with the target exactly as given; resolves with status, headers and body. */
export function send(
  port: number,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  agent?: Agent,
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path: target, headers: { Host: `127.0.0.1:${port}`, ...headers }, agent: agent ?? false, setHost: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        const raw = res.rawHeaders;
        const all = (name: string): string[] => raw.flatMap((v, i) => (i % 2 === 0 && v.toLowerCase() === name ? [raw[i + 1]!] : []));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, all, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}
