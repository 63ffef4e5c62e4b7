import { setMaxListeners } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { onSendHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { BigAnswerAdmission } from './big-answers.js';
import { ConnectionGuard, defaultMaxConnections } from './connections.js';
import { shuttingDown } from './limits.js';
import { DEFAULT_MAX_UNSENT_BYTES, DEFAULT_STALL_TIMEOUT_MS, UnsentAnswers } from './unsent-answers.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Open connections, their cap, responses in flight, shutdown (connections.ts). */
    connections: ConnectionGuard;
    /**
     * Bytes of answers not yet taken by their clients (unsent-answers.ts). Every reply is counted
     * automatically; a route that builds a big answer should `await unsentAnswers.room(deadline)`
     * first, as the Java routes do.
     */
    unsentAnswers: UnsentAnswers;
    /** What a big answer waits for before it is built (big-answers.ts), and whether the server is closing. */
    bigAnswers: BigAnswerGate;
  }
}

export interface CapacityOptions {
  /** Open connections at most (default: below the descriptor limit, see connections.ts). */
  readonly maxConnections?: number | undefined;
  /** Bytes of unsent answers above which no big answer is built (default 64 MiB). */
  readonly maxUnsentBytes?: number | undefined;
  /** An answer whose client takes nothing of it for this long is ended (default 30 s; 0: never). */
  readonly stallTimeoutMs?: number | undefined;
  /** The server speaks TLS (connections are tracked through their TLS sockets). */
  readonly tls: boolean;
}

export interface BigAnswerGate {
  /** A request's admission for a big answer, until `deadline` (epoch ms). */
  admission(request: IncomingMessage, deadline: number): BigAnswerAdmission;
  /** The server is shutting down: answers close their connection, big ones are not started. */
  readonly closing: boolean;
}

/**
 * What the server can carry at once: connections (capped), bytes of answers their clients have
 * not taken yet (every answer counted until taken), big answers (admitted one by one), and a
 * shutdown that lets the answers in flight finish.
 */
export const capacityPlugin = fp<CapacityOptions>(
  (app, options, done) => {
    const connections = new ConnectionGuard(app.server, options.maxConnections ?? defaultMaxConnections(), options.tls);
    const unsent = new UnsentAnswers(options.maxUnsentBytes ?? DEFAULT_MAX_UNSENT_BYTES, options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS, app.log);
    // Shutdown: big answers that have not started being built are not built any more (503).
    const shutdown = new AbortController();
    // Every request waiting for admission listens to it.
    setMaxListeners(0, shutdown.signal);
    let closing = false;
    const gate: BigAnswerGate = {
      admission: (request, deadline) =>
        new BigAnswerAdmission(
          {
            connectionDrained: (_deadline, signal) => connections.earlierResponsesSent(request, signal),
            room: (until, signal) => unsent.room(until, signal),
            signal: shutdown.signal,
          },
          deadline,
        ),
      get closing() {
        return closing;
      },
    };
    app.decorate('connections', connections);
    app.decorate('unsentAnswers', unsent);
    app.decorate('bigAnswers', gate);
    // While shutting down, answers to requests in flight close their connection, so that closing
    // waits for them and not for idle keep-alive connections.
    app.addHook('preClose', async () => {
      closing = true;
      shutdown.abort(shuttingDown());
    });
    app.addHook('onSend', answerCounting(gate, unsent));
    done();
  },
  { name: 'capacity' },
);

/**
 * The hook every answer passes (onSend): while shutting down it closes its connection, and it is
 * counted against the unsent-bytes budget until its client has taken it. Also added by the
 * instance that answers /api/v1 (api-v1/lazy-api-v1.ts), over this application's gate and budget.
 */
export function answerCounting(gate: BigAnswerGate, unsent: UnsentAnswers): onSendHookHandler {
  return (_request, reply, payload, next) => {
    if (gate.closing) reply.header('connection', 'close');
    if (Buffer.isBuffer(payload)) unsent.hold(payload.length, reply.raw);
    // A text's bytes as sent (UTF-8), not its characters: '€' is one character and three bytes.
    else if (typeof payload === 'string') unsent.hold(Buffer.byteLength(payload), reply.raw);
    next(null, payload);
  };
}
