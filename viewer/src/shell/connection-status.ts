import { ApiError, errorMessage } from '../model/api.js';
import { clear, h } from '../ui/dom.js';
import { formatTime } from '../ui/format.js';
import type { LiveWatcher } from './live.js';

/**
 * Whether the server answers, as the top bar and the banner say it: `live`, `paused` (the tab is
 * hidden) or `offline` with a "Connection lost" banner until it answers again; and the toast of
 * short notices ("Storage changed — view refreshed at …").
 */
export class ConnectionStatus {
  readonly banner: HTMLElement;
  readonly liveStatus: HTMLElement;
  readonly toast: HTMLElement;
  private offlineNow = false;
  private toastTimer: number | undefined;

  constructor(private readonly live: LiveWatcher | (() => LiveWatcher)) {
    this.banner = h('div', { class: 'banner', role: 'alert', hidden: true });
    this.liveStatus = h('span', { class: 'live-status', title: '' });
    this.toast = h('div', { class: 'toast', role: 'status', 'aria-live': 'polite' });
  }

  get offline(): boolean {
    return this.offlineNow;
  }

  /** A live check failed: `answers` when the server answered (with an error, so no lost connection), `lost` when it no longer answers, `still-lost` after that. */
  checkFailed(error: unknown): 'answers' | 'lost' | 'still-lost' {
    if (!(error instanceof ApiError && error.kind === 'unreachable')) return 'answers';
    this.update();
    if (this.offlineNow) return 'still-lost';
    this.offlineNow = true;
    clear(this.banner, h('strong', null, 'Connection lost. '), errorMessage(error), ' Retrying every 2 seconds…');
    this.banner.hidden = false;
    this.update();
    return 'lost';
  }

  /** The server answers again; true when it had been lost. */
  answers(): boolean {
    if (!this.offlineNow) return false;
    this.reset();
    this.notify('The server answers again.', 'info');
    return true;
  }

  /** Another storage is shown: nothing is lost so far. */
  reset(): void {
    this.offlineNow = false;
    this.banner.hidden = true;
    this.update();
  }

  update(): void {
    const live = typeof this.live === 'function' ? this.live() : this.live;
    const last = live.lastCheck;
    const state = this.offlineNow ? 'offline' : live.paused ? 'paused' : 'live';
    this.liveStatus.className = `live-status ${state}`;
    this.liveStatus.textContent = state;
    this.liveStatus.title =
      state === 'offline'
        ? 'The server does not answer; checking again every 2 seconds.'
        : `Watching the storage for changes every 2 seconds while this tab is visible.${last === undefined ? '' : ` Last check ${formatTime(last)}.`}`;
  }

  notify(message: string, kind: 'info' | 'change' | 'error'): void {
    clear(this.toast, h('div', { class: `toast-item ${kind}` }, message));
    this.toast.classList.add('visible');
    if (this.toastTimer !== undefined) window.clearTimeout(this.toastTimer);
    this.toastTimer = window.setTimeout(() => this.toast.classList.remove('visible'), kind === 'error' ? 12000 : 8000);
  }
}
