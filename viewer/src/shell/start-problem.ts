import { ApiError, errorMessage } from '../model/api.js';
import { h } from '../ui/dom.js';
import { formatRoute } from './router.js';

/**
 * What the page says when the storage cannot be opened: credentials asked for (a token form), a
 * storage name the server does not serve (with those it does), or the server not answering (how
 * to start it; the page retries by itself while it is unreachable).
 */

export interface StartContext {
  /** The REST API's base URL and the instance asked for. */
  readonly base: string;
  readonly instance: string;
  /** The instances the server serves (empty when unknown). */
  readonly instances: readonly string[];
  /** Try again (the button, and after a token is given). */
  retry(): void;
  useToken(token: string | undefined): void;
}

/** The problem's element, and whether the page should retry by itself (the server is unreachable). */
export function startProblem(error: unknown, context: StartContext): { readonly element: HTMLElement; readonly retryByItself: boolean } {
  const unauthorized = error instanceof ApiError && error.kind === 'unauthorized';
  const parts: (HTMLElement | string)[] = [h('h2', null, unauthorized ? 'Credentials needed' : 'Cannot open the storage'), h('p', null, errorMessage(error))];
  let retryByItself = false;
  if (unauthorized) {
    const input = h('input', { type: 'password', class: 'token-input', 'aria-label': 'Access token', placeholder: 'access token', autocomplete: 'off' });
    const form = h('form', { class: 'token-form' }, input, h('button', { type: 'submit', class: 'button primary' }, 'Use token'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      context.useToken(input.value.trim() === '' ? undefined : input.value.trim());
      context.retry();
    });
    parts.push(form, h('p', { class: 'hint' }, 'The token is sent as "Authorization: Bearer …" and kept for this tab only. For HTTP Basic, reload the page and let the browser ask.'));
  } else if (error instanceof ApiError && error.kind === 'not-found' && context.instances.length > 0 && !context.instances.includes(context.instance)) {
    // The server runs and answers, but serves no storage under this name: say which it serves.
    parts.splice(
      1,
      1,
      h('p', null, `No storage is served under the name "${context.instance}" here.`),
      h('p', null, 'Served here: ', context.instances.flatMap((instance, i) => [i > 0 ? ', ' : '', h('a', { href: formatRoute({ view: 'data', instance: undefined, oid: undefined, path: [] }, instance) }, instance)])),
    );
  } else {
    retryByItself = error instanceof ApiError && error.kind === 'unreachable';
    parts.push(
      h('p', { class: 'hint' }, `The viewer reads the REST API at ${context.base}/${context.instance}/. Start the server with "storage-inspector serve <storage-dir>"${retryByItself ? '; this page retries by itself every 3 seconds.' : ' and try again.'}`),
      h('button', { type: 'button', class: 'button primary', onclick: () => context.retry() }, 'Try again'),
    );
  }
  return { element: h('div', { class: 'start-problem', role: 'alert' }, parts), retryByItself };
}
