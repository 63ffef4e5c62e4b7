import './styles.css';
import { App, hostElement } from './app.js';
import { errorMessage } from './api.js';

/**
 * Entry point. The REST API is the page's own origin unless `?api=<url>` names another server
 * (e.g. a Java Storage REST service that allows CORS): `/viewer/?api=http://host:4567`.
 */

function apiBase(): string {
  const given = new URLSearchParams(location.search).get('api');
  // Same server: the REST routes sit next to /viewer/ (also behind a proxy that adds a prefix).
  if (given === null || given.trim() === '') return location.origin + location.pathname.replace(/\/viewer(\/.*)?$/, '');
  try {
    const url = new URL(given.trim(), location.href);
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return location.origin;
  }
}

const host = hostElement();
const app = new App(host, apiBase(), 'microstream');
window.addEventListener('error', (event) => app.showUnexpected(event.error ?? event.message));
window.addEventListener('unhandledrejection', (event) => app.showUnexpected(event.reason));
app.start().catch((error: unknown) => {
  host.textContent = `The viewer could not start: ${errorMessage(error)}`;
});
