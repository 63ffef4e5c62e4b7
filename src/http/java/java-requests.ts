import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { isAppError } from '../../errors.js';
import type { StorageRegistry } from '../../registry/storage-registry.js';
import { NEEDS_ADMISSION, type BigAnswerAdmission, type NeedsAdmission } from '../guard/big-answers.js';
import { requestTimedOut, RequestLimitError } from '../guard/limits.js';
import { RequestDeadlines } from '../guard/request-deadlines.js';
import { answerInDialect } from './dialects.js';
import { errorCode, limitAnswer, notFoundPage, serverErrorPage, type Answer, type JavaServiceOptions, type RawRequest, type ServiceState } from './java-service.js';
import { combinedRouteListJson, resolveStorage, unavailableAnswer } from './named-routes.js';

/**
 * The one way into a Java-compatible request, whichever door it came in by (the lane, fastify's
 * catch-all, or fastify's framework errors): which storage it is for, its run against one
 * consistent state, its admission when its answer turns out big, a second run after the state
 * caught up with a running Java storage's housekeeping, its deadline, and the log line of a
 * failure. Never rejects: every failure is an answer.
 */

export interface JavaRequestsOptions {
  /** The current consistent state of the (first) storage; a following reader swaps it between requests. */
  readonly state: () => ServiceState;
  readonly service: JavaServiceOptions;
  /** Storages served by name on the Java routes too (`serve NAME=DIR ...`). */
  readonly registry?: StorageRegistry | undefined;
  /** Resolves once the state is current again after a data file was deleted meanwhile. */
  readonly catchUp?: (() => Promise<void>) | undefined;
  /** The request timeout (0: none). */
  readonly timeoutMs: number;
  /** A request's admission for a big answer (capacity-plugin.ts). */
  readonly admission: (request: IncomingMessage, deadline: number) => BigAnswerAdmission;
  /** Counts an answer's bytes until its client has taken them. */
  readonly hold: (bytes: number, response: ServerResponse) => void;
  readonly log: FastifyBaseLogger;
}

/** How much later than a request's deadline its answer is replaced by a timeout 503 regardless. */
const TIMEOUT_GRACE_MS = 200;

/** An instance no request path contains: only SparkJava's `/` route matches it. */
const NO_INSTANCE = '\u0000';

/** A storage and how to answer for it. */
interface JavaTarget {
  readonly state: ServiceState;
  readonly options: JavaServiceOptions;
  readonly catchUp?: (() => Promise<void>) | undefined;
}

export class JavaRequests {
  /**
   * The answer, or a 503 once the request timeout has passed (the work stops at its next check).
   * A little later than the request's own deadline, so that a request waiting for something
   * (room for its answer) says what it waited for.
   */
  private readonly deadlines: RequestDeadlines<Answer> | undefined;

  constructor(private readonly options: JavaRequestsOptions) {
    const timeoutMs = options.timeoutMs;
    this.deadlines = timeoutMs > 0 ? new RequestDeadlines(timeoutMs + TIMEOUT_GRACE_MS, () => limitAnswer(requestTimedOut(timeoutMs))) : undefined;
  }

  /** The request's answer (timeout included); a failure is logged here. */
  async answer(request: IncomingMessage, response: ServerResponse): Promise<Answer> {
    const pending = this.dispatch(request, response);
    const answer = await (this.deadlines === undefined ? pending : this.deadlines.within(pending)).catch((error: unknown) => serverErrorPage(error));
    this.logFailure(answer, request.url);
    return answer;
  }

  close(): void {
    this.deadlines?.close();
  }

  private async dispatch(raw: IncomingMessage, response: ServerResponse): Promise<Answer> {
    try {
      const target = this.targetFor(raw.url ?? '/');
      if (!('state' in target)) return target;
      const answer = await this.answerAdmitted(target, raw, response);
      if (target.catchUp === undefined || !isFileGone(answer.error)) return answer;
      await target.catchUp();
      return await this.answerAdmitted(target, raw, response);
    } catch (error) {
      return serverErrorPage(error);
    }
  }

  /** Which storage a request is for (several storages: by its path, named-routes.ts). */
  private targetFor(url: string): JavaTarget | Answer {
    const { registry, service } = this.options;
    if (registry === undefined || !servesNamedStorages(registry)) return { state: this.options.state(), options: service, catchUp: this.options.catchUp };
    const queryStart = url.indexOf('?');
    const resolution = resolveStorage(registry, queryStart < 0 ? url : url.slice(0, queryStart));
    if (resolution.kind === 'unavailable') return unavailableAnswer(resolution.storage);
    if (resolution.kind === 'storage') {
      return { state: resolution.context.storage, options: { ...service, instance: resolution.instance }, catchUp: resolution.context.served?.catchUp };
    }
    // No storage's path: the dialect answers its "not found" (SparkJava: or the route list of all).
    const any = registry.all()[0];
    if (any === undefined) return notFoundPage();
    return { state: any.storage, options: { ...service, instance: NO_INSTANCE, routeListing: (host) => combinedRouteListJson(registry, host) } };
  }

  /**
   * Runs the request; a big answer is admitted outside the consistent state, then built
   * (big-answers.ts). Most answers are small: they take one run and no promise more.
   */
  private answerAdmitted(target: JavaTarget, raw: IncomingMessage, response: ServerResponse): Promise<Answer> {
    const timeoutMs = this.options.timeoutMs;
    const admission = this.options.admission(raw, timeoutMs > 0 ? Date.now() + timeoutMs : Number.POSITIVE_INFINITY);
    return answerOnce(target, raw, admission).then((answer) => (answer === NEEDS_ADMISSION ? this.answerBig(target, raw, response, admission) : answer));
  }

  /** A request found to be big (the first run's description dropped): admitted, waiting for its turn, then run again. */
  private async answerBig(target: JavaTarget, raw: IncomingMessage, response: ServerResponse, admission: BigAnswerAdmission): Promise<Answer> {
    try {
      try {
        await admission.acquire();
      } catch (error) {
        if (error instanceof RequestLimitError) return limitAnswer(error);
        throw error;
      }
      const answer = await answerOnce(target, raw, admission);
      // Admitted, a run goes on however big its answer (RequestBudget.admitBig).
      if (answer === NEEDS_ADMISSION) throw new Error('an admitted request asked for admission again');
      // Counted before the building slot is freed, so that the next big answer sees it.
      this.options.hold(answer.body.length, response);
      return answer;
    } finally {
      admission.finish();
    }
  }

  /** Logs why an answer failed, if it did. */
  private logFailure(answer: Answer, url: string | undefined): void {
    if (answer.error === undefined) return;
    const code = errorCode(answer.error);
    const entry = { err: answer.error, code, status: answer.status, url };
    // A malformed query is the client's doing (Java answers 500 for it too): not an error of ours.
    if (answer.status >= 500 && code !== 'QUERY_DECODE') this.options.log.error(entry, 'request failed');
    else this.options.log.warn(entry, 'request refused');
  }
}

/** One run of the request against one consistent state. */
function answerOnce(target: JavaTarget, raw: IncomingMessage, admission: BigAnswerAdmission): Promise<Answer | NeedsAdmission> {
  const state = target.state;
  const request: RawRequest = { method: raw.method ?? 'GET', url: raw.url ?? '/', headers: raw.headers };
  const run = (): Promise<Answer | NeedsAdmission> => answerInDialect(state, target.options, request, { admission });
  return state.consistent === undefined ? run() : state.consistent(run);
}

/** Whether the registry serves storages on the Java-compatible routes (`serve NAME=DIR ...`). */
function servesNamedStorages(registry: StorageRegistry): boolean {
  return registry.unavailable().length > 0 || registry.all().some((context) => context.served !== undefined);
}

function isFileGone(error: unknown): boolean {
  return isAppError(error) && error.code === 'STORAGE_FILE_GONE';
}
