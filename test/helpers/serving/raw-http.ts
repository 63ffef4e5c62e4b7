import { Agent, request } from 'node:http';

export interface RawResponse {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly body: Buffer;
}

/**
 * Sends a request with the target exactly as given (no URL normalisation, unlike fetch or
 * inject), over a keep-alive agent.
 */
export function rawRequest(
  agent: Agent,
  port: number,
  method: string,
  target: string,
  headers: Record<string, string>,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path: target, headers, agent, setHost: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
