import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTlsConfig } from '../../src/http/guard/tls.js';
import { corpusStorage, startServer, type TestServer } from './server.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const CERT = join(FIXTURES, 'localhost-cert.pem');
const KEY = join(FIXTURES, 'localhost-key.pem');

function httpsGet(port: number, path: string): Promise<{ status: number; body: string; protocol: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, ca: readFileSync(CERT), servername: 'localhost' }, (res) => {
      let body = '';
      const protocol = (res.socket as { getProtocol?: () => string | null }).getProtocol?.() ?? '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, protocol }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('TLS', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(corpusStorage('noroot'), { tls: loadTlsConfig(CERT, KEY, () => undefined) });
  });
  afterAll(() => server.close());

  it('serves the same answers over HTTPS', async () => {
    const answer = await httpsGet(server.port, '/microstream/root');
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('{"name":"ROOT","objectId":"0"}');
    expect(answer.protocol).toMatch(/^TLSv1\.[23]$/);
  });

  it('refuses missing halves, unreadable files and a key that is not one', () => {
    expect(loadTlsConfig(undefined, undefined, () => undefined)).toBeUndefined();
    expect(() => loadTlsConfig(CERT, undefined, () => undefined)).toThrow('--tls-cert and --tls-key go together');
    expect(() => loadTlsConfig(CERT, join(FIXTURES, 'missing.pem'), () => undefined)).toThrow(/cannot read --tls-key .*missing\.pem/);
    expect(() => loadTlsConfig(CERT, CERT, () => undefined)).toThrow(/not a usable PEM certificate and matching private key/);
  });
});
