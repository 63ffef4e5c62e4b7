import Fastify, {
  LogController, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { isAppError } from '../errors.js';
import { answerRequest, serverErrorPage, type Answer, type JavaServiceOptions, type RawRequest, type ServiceState } from './java-service.js';

/**
 * The HTTP application: fastify carries the bytes, logs one line per request and shuts down
 * gracefully; every request goes through one catch-all route to the Java-compatible service,
 * because Spark's routing (raw paths, empty segments, method override) is not fastify's.
 * Never listens by itself: `serve` does that.
 */

export interface AppOptions extends JavaServiceOptions {
  /** fastify's logger option (pino); false for none. */
  readonly logger?: FastifyServerOptions['logger'];
  /**
   * Called when a request read a data file that was deleted meanwhile (housekeeping of a running
   * Java storage); resolves once the state is current again, and the request is answered anew.
   */
  readonly catchUp?: () => Promise<void>;
}

/** The current consistent state to answer from (a following reader swaps it between requests). */
export type StateProvider = () => ServiceState;

function isFileGone(error: unknown): boolean {
  return isAppError(error) && error.code === 'STORAGE_FILE_GONE';
}

export function buildApp(state: StateProvider | ServiceState, options: AppOptions): FastifyInstance {
  const current: StateProvider = typeof state === 'function' ? state : () => state;
  const app = Fastify({
    logger: options.logger ?? false,
    // One line per request, written by the onResponse hook below.
    logController: new LogController({ disableRequestLogging: true }),
    exposeHeadRoutes: false,
    // Bodies are never read; this only bounds what a client can make us buffer.
    bodyLimit: 1024 * 1024,
    frameworkErrors: (error, request, reply) => {
      // Requests fastify cannot route (e.g. a malformed percent escape) still get Java's answer.
      void dispatch(request.raw.method ?? 'GET', request.raw.url ?? '/', request.headers).then(
        (answer) => send(reply, answer),
        () => send(reply, serverErrorPage(error)),
      );
    },
  });

  const answerOnce = (method: string, url: string, headers: RawRequest['headers']): Promise<Answer> => {
    const state = current();
    const run = (): Promise<Answer> => answerRequest(state, options, { method, url, headers });
    return state.consistent === undefined ? run() : state.consistent(run);
  };
  const dispatch = async (method: string, url: string, headers: RawRequest['headers']): Promise<Answer> => {
    try {
      const answer = await answerOnce(method, url, headers);
      if (options.catchUp === undefined || !isFileGone(answer.error)) return answer;
      await options.catchUp();
      return await answerOnce(method, url, headers);
    } catch (error) {
      return serverErrorPage(error);
    }
  };
  const send = (reply: FastifyReply, answer: Answer): void => {
    reply.code(answer.status);
    reply.header('content-type', answer.contentType);
    reply.send(answer.body);
  };

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null, undefined));

  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      { method: request.method, url: request.raw.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
      'request',
    );
  });

  const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const answer = await dispatch(request.raw.method ?? 'GET', request.raw.url ?? '/', request.headers);
    if (answer.status === 500 && answer.error !== undefined) app.log.error({ err: answer.error, url: request.raw.url }, 'request failed');
    send(reply, answer);
  };
  app.route({ method: app.supportedMethods, url: '*', handler });
  app.setNotFoundHandler(handler);
  return app;
}
