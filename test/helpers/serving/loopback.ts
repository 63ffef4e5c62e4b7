import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** Starts the app listening on 127.0.0.1 at a port the system picks (so tests never collide), and gives that port. */
export async function listenOnLoopback(app: FastifyInstance): Promise<number> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as AddressInfo).port;
}
