import './styles.css';
import { App, hostElement } from './shell/app.js';
import { errorMessage } from './model/api.js';
import { allowForeignOrigin, chooseApi, foreignOriginAllowed } from './model/api-origin.js';
import { clear, h } from './ui/dom.js';
import { copyRealText } from './ui/invisible.js';

/**
 * Entry point. The REST API is the page's own origin unless `?api=<url>` names another server
 * (e.g. a Java Storage REST service that allows CORS): `/viewer/?api=http://host:4567`. Another
 * server is only contacted once the user agreed (api-origin.ts).
 */

const host = hostElement();
copyRealText(document);
const ownServer = `${location.origin}${location.pathname}`;

function start(base: string): void {
  const app = new App(host, base, 'microstream');
  window.addEventListener('error', (event) => app.showUnexpected(event.error ?? event.message));
  window.addEventListener('unhandledrejection', (event) => app.showUnexpected(event.reason));
  app.start().catch((error: unknown) => {
    host.textContent = `The viewer could not start: ${errorMessage(error)}`;
  });
}

function ownViewerLink(label: string): HTMLAnchorElement {
  return h('a', { class: 'button', href: `${ownServer}${location.hash}` }, label);
}

const choice = chooseApi(location);
if (choice.kind === 'own') {
  start(choice.base);
} else if (choice.kind === 'invalid') {
  clear(
    host,
    h(
      'div',
      { class: 'start-problem', role: 'alert' },
      h('h2', null, 'This link names an API the viewer does not use'),
      h('p', null, `The address in the link's api parameter is refused: ${choice.reason}.`),
      h('pre', { class: 'value-box' }, choice.given.slice(0, 200)),
      h('p', null, ownViewerLink(`Open the storage of ${location.host} instead`)),
    ),
  );
} else if (foreignOriginAllowed(choice.origin)) {
  start(choice.base);
} else {
  const foreign = new URL(choice.origin).host;
  const connect = h('button', { type: 'button', class: 'button primary' }, `Connect to ${foreign}`);
  connect.addEventListener('click', () => {
    allowForeignOrigin(choice.origin);
    start(choice.base);
  });
  clear(
    host,
    h(
      'div',
      { class: 'start-problem confirm-api', role: 'alertdialog', 'aria-labelledby': 'confirm-api-title' },
      h('h2', { id: 'confirm-api-title' }, 'Read a storage from another server?'),
      h('p', null, 'This link asks the viewer to show the storage REST API at ', h('code', null, choice.base), ', another server than the one this page comes from (', h('code', null, location.host), ').'),
      h(
        'p',
        { class: 'hint' },
        'Only continue if you know that server: the viewer will show whatever it answers. Access tokens are kept per server; one entered for this server is never sent to another.',
      ),
      h('p', { class: 'actions' }, connect, ' ', ownViewerLink(`Use ${location.host} instead`)),
    ),
  );
  connect.focus();
}
