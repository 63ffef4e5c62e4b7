import { Api, ApiError, errorMessage, type FilesStatistics } from '../model/api.js';
import { ApiV1 } from '../model/api-v1.js';
import { clear, h } from '../ui/dom.js';
import { formatTime } from '../ui/format.js';
import { LiveWatcher } from './live.js';
import { DictionaryHolder } from '../model/dictionary-holder.js';
import { TreeLoader } from '../tree/tree-loader.js';
import { formatRoute, parseHash, parseObjectIdInput, type Route } from './router.js';
import type { ViewHost } from './view-host.js';
import { API_V1_VIEWS, defaultRoute, TABS, Views, type ViewName } from './views.js';
import { SqlApi } from '../grid/sql-api.js';
import { DamageBanner } from './damage-banner.js';
import { ConnectionStatus } from './connection-status.js';
import { startProblem } from './start-problem.js';
import { objectSummaries } from '../grid/summaries.js';

export class App implements ViewHost {
  readonly api: Api;
  readonly v1: ApiV1;
  readonly sql: SqlApi;
  /** The server runs SQL (`/api/v1/sql`): the Query tab and the instance grids. */
  sqlAvailable = false;
  /** The server has storage-inspector's own API (`/api/v1`); the Java service has not. */
  ownApi = false;
  readonly types: DictionaryHolder;
  readonly loader: TreeLoader;
  private readonly main: HTMLElement;
  private readonly damage = new DamageBanner();
  private readonly status: ConnectionStatus;
  private readonly instanceLabel: HTMLElement;
  /** Lets the user switch storages when the server serves several (hidden otherwise). */
  private readonly storageSwitch: HTMLSelectElement;
  /** The storages the route list names (one, or one per storage served by name). */
  private instances: readonly string[] = [];
  /** Storages the server was asked to serve but could not open (from `/api/v1/storages`). */
  private failedStorages: readonly { readonly name: string; readonly reason: string }[] = [];
  private readonly tabs: Record<ViewName, HTMLAnchorElement>;
  private readonly jumpInput: HTMLInputElement;
  private readonly jumpError: HTMLElement;
  private views: Views;
  private current: ViewName | undefined;
  private lastDataRoute: Route = { view: 'data', instance: undefined, oid: undefined, path: [] };
  private readonly live: LiveWatcher;
  private started = false;
  private bootRetry: number | undefined;

  constructor(
    host: HTMLElement,
    base: string,
    instance: string,
  ) {
    this.api = new Api(base, instance);
    this.v1 = new ApiV1(this.api);
    this.sql = new SqlApi(this.api, this.v1);
    this.types = new DictionaryHolder(this.api, () => this.onDictionaryReloaded());
    this.loader = new TreeLoader(this.api, this.types);
    this.main = h('main', { class: 'main', id: 'main' });
    this.status = new ConnectionStatus(() => this.live);
    this.instanceLabel = h('span', { class: 'instance' });
    this.storageSwitch = h('select', { class: 'storage-switch', 'aria-label': 'Storage', hidden: true });
    this.storageSwitch.addEventListener('change', () => {
      location.hash = formatRoute({ view: 'data', instance: undefined, oid: undefined, path: [] }, this.storageSwitch.value);
    });
    this.tabs = Object.fromEntries(TABS.map(([view, label]) => [view, h('a', { class: 'tab', href: '#', 'data-view': view }, label)])) as Record<ViewName, HTMLAnchorElement>;
    this.views = new Views(this, (element, title) => this.mount(element, title));
    for (const view of API_V1_VIEWS) this.tabs[view].hidden = true;
    this.jumpInput = h('input', {
      type: 'search',
      class: 'jump-input',
      placeholder: 'Object id or text…  ( / )',
      'aria-label': 'Go to object id, or search',
      spellcheck: 'false',
      autocomplete: 'off',
      inputmode: 'numeric',
    });
    this.jumpError = h('span', { class: 'jump-error', role: 'alert' });
    const jump = h('form', { class: 'jump', role: 'search' }, this.jumpInput, h('button', { type: 'submit', class: 'button' }, 'Go'), this.jumpError);
    jump.addEventListener('submit', (event) => {
      event.preventDefault();
      this.jumpTo(this.jumpInput.value);
    });
    this.jumpInput.addEventListener('input', () => this.setJumpError(''));
    const bar = h(
      'header',
      { class: 'topbar' },
      h('span', { class: 'brand' }, h('span', { class: 'logo', 'aria-hidden': 'true' }, '◆'), 'storage-inspector'),
      this.instanceLabel,
      this.storageSwitch,
      h('nav', { class: 'tabs', 'aria-label': 'Views' }, TABS.map(([view]) => this.tabs[view])),
      jump,
      this.status.liveStatus,
    );
    clear(host, h('div', { class: 'app' }, bar, h('div', { class: 'banners' }, this.status.banner, this.damage.element), this.main, this.status.toast));
    this.live = new LiveWatcher(this.api, {
      changed: () => void this.storageChanged(),
      down: (error) => this.liveCheckFailed(error),
      up: () => this.setOnline(),
      checked: () => this.updateLiveStatus(),
    });
    this.updateInstanceLabel();
  }

  async start(): Promise<void> {
    window.addEventListener('hashchange', () => void this.onRoute());
    document.addEventListener('visibilitychange', () => this.updateLiveStatus());
    document.addEventListener('keydown', (event) => {
      const target = event.target;
      const typing = target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement;
      if (event.key === '/' && !typing && !event.ctrlKey && !event.metaKey) {
        event.preventDefault();
        (this.current === 'dictionary' ? this.views.dictionary?.searchInput ?? this.jumpInput : this.jumpInput).focus();
      }
    });
    await this.boot();
  }

  /** Find the instance, load the dictionary, show the route; explain what is wrong otherwise. */
  private async boot(): Promise<void> {
    // Assistive technology (and the browser tests) can tell when the start has ended.
    this.main.setAttribute('aria-busy', 'true');
    try {
      await this.bootSteps();
    } finally {
      this.main.removeAttribute('aria-busy');
    }
  }

  private async bootSteps(): Promise<void> {
    const route = parseHash(location.hash);
    try {
      const discovered = await this.api.discoverInstances().catch((error: unknown) => {
        if (route.instance === undefined && error instanceof ApiError && (error.kind === 'unreachable' || error.kind === 'unauthorized')) throw error;
        return [] as string[];
      });
      this.instances = discovered;
      if (route.instance !== undefined) this.api.instance = route.instance;
      else if (discovered[0] !== undefined) this.api.instance = discovered[0];
      this.updateInstanceLabel();
      await this.types.load();
    } catch (error) {
      this.showStartProblem(error);
      return;
    }
    this.ownApi = await this.v1.available();
    this.loader.summaries = this.ownApi ? (ids) => objectSummaries(this, ids) : undefined;
    if (this.ownApi) {
      void this.damage.load(this.v1);
      // The server's list, not the storage's: /api/v1/storages whichever storage is shown.
      this.failedStorages = await this.api
        .fetch(`${this.api.base}/api/v1/storages`)
        .then(async (response) => (response.ok ? ((await response.json()) as { storages: { name: string; state: string; reason?: string }[] }).storages : []))
        .then((storages) => storages.filter((s) => s.state === 'failed').map((s) => ({ name: s.name, reason: s.reason ?? '' })))
        .catch(() => []);
      this.updateInstanceLabel();
    }
    this.sqlAvailable = this.ownApi && (await this.sql.available());
    for (const view of API_V1_VIEWS) this.tabs[view].hidden = !this.ownApi || (view === 'query' && !this.sqlAvailable);
    if (!this.started) {
      this.started = true;
      let initial: FilesStatistics | undefined;
      try {
        initial = await this.api.statistics();
      } catch {
        initial = undefined;
      }
      this.live.start(initial);
      this.updateLiveStatus();
    }
    // The hash as it is now: a tab clicked while the steps above waited is where the user went
    // (the route read at the start would send them back to it).
    const current = parseHash(location.hash);
    if (current.instance === undefined) history.replaceState(null, '', formatRoute(current, this.api.instance));
    await this.onRoute();
  }

  private showStartProblem(error: unknown): void {
    const problem = startProblem(error, {
      base: this.api.base,
      instance: this.api.instance,
      instances: this.instances,
      retry: () => void this.boot(),
      useToken: (token) => this.api.setToken(token),
    });
    if (problem.retryByItself && this.bootRetry === undefined) {
      this.bootRetry = window.setTimeout(() => {
        this.bootRetry = undefined;
        if (!this.types.loaded) void this.boot();
      }, 3000);
    }
    clear(this.main, problem.element);
    this.current = undefined;
  }

  private updateInstanceLabel(): void {
    const several = this.instances.length + this.failedStorages.length > 1;
    this.storageSwitch.hidden = !several;
    if (several) {
      const options = this.instances.includes(this.api.instance) ? this.instances : [...this.instances, this.api.instance];
      // Storages that could not be opened are listed too, not selectable, saying why.
      const failed = this.failedStorages.map((f) => h('option', { value: '', disabled: true, title: f.reason }, `${f.name} (not served: ${f.reason.length > 60 ? `${f.reason.slice(0, 60)}…` : f.reason})`));
      this.storageSwitch.replaceChildren(...options.map((instance) => h('option', { value: instance }, instance)), ...failed);
      this.storageSwitch.value = this.api.instance;
    }
    this.instanceLabel.textContent = several ? `@ ${this.api.serverLabel}` : `${this.api.instance} @ ${this.api.serverLabel}`;
    this.instanceLabel.title = `REST API: ${this.api.base}/${this.api.instance}/`;
    for (const [view, anchor] of Object.entries(this.tabs) as [ViewName, HTMLAnchorElement][]) {
      anchor.href = view === 'data' ? this.href(this.lastDataRoute) : this.href(defaultRoute(view));
    }
  }

  /** The storages served by name (`serve NAME=DIR ...`): none when one storage is served. */
  storageNames(): readonly string[] {
    return this.instances.filter((i) => i.includes('/')).map((i) => i.slice(i.indexOf('/') + 1));
  }

  instanceOfStorage(name: string): string | undefined {
    return this.instances.find((i) => i.includes('/') && i.slice(i.indexOf('/') + 1) === name);
  }

  href(route: Route): string {
    return formatRoute(route, this.api.instance);
  }

  navigate(route: Route): void {
    const hash = this.href(route);
    if (location.hash === hash) void this.onRoute();
    else location.hash = hash;
  }

  /** Record the current state in the URL without a new history entry. */
  replaceRoute(route: Route): void {
    if (route.view === 'data') {
      this.lastDataRoute = route;
      this.tabs.data.href = this.href(route);
    }
    const hash = this.href(route);
    if (location.hash !== hash) history.replaceState(null, '', hash);
  }

  private async onRoute(): Promise<void> {
    const route = parseHash(location.hash);
    if (route.instance !== undefined && route.instance !== this.api.instance) {
      await this.switchInstance(route.instance);
      return;
    }
    if (!this.types.loaded) return;
    this.setView(route.view);
    if (route.view === 'data') {
      this.lastDataRoute = route;
      this.tabs.data.href = this.href(route);
    }
    await this.views.show(route);
  }

  /**
   * The hash names another instance: everything known so far belongs to the previous one (views,
   * answers, dictionary, the live watcher's figures and its alarms), then it starts like a fresh load.
   */
  private async switchInstance(instance: string): Promise<void> {
    this.api.instance = instance;
    this.views = new Views(this, (element, title) => this.mount(element, title));
    this.sql.reset();
    this.loader.clear();
    this.types.reset();
    this.live.reset();
    this.lastDataRoute = { view: 'data', instance: undefined, oid: undefined, path: [] };
    this.status.reset();
    this.damage.reset();
    clear(this.main, h('p', { class: 'boot' }, `Opening instance ${instance}…`));
    await this.boot();
  }

  private mount(element: HTMLElement, title: string): void {
    document.title = `${title} · ${this.api.instance} · storage-inspector`;
    if (this.main.firstElementChild !== element || this.main.childElementCount !== 1) clear(this.main, element);
  }

  private setView(view: ViewName): void {
    this.current = view;
    for (const [name, anchor] of Object.entries(this.tabs)) {
      if (name === view) anchor.setAttribute('aria-current', 'page');
      else anchor.removeAttribute('aria-current');
    }
  }

  private jumpTo(text: string): void {
    const oid = parseObjectIdInput(text);
    if (oid === undefined) {
      if (text.trim() !== '' && this.ownApi && !/^[-+\d\s,_']+$/.test(text.trim())) {
        // Not meant as an id: look for it in the objects' texts and values.
        this.setJumpError('');
        this.jumpInput.value = '';
        this.navigate({ view: 'search', instance: undefined, query: text.trim(), type: '', offset: 0 });
        return;
      }
      this.setJumpError('An object id is a whole number such as 1000000000000000028.');
      return;
    }
    this.setJumpError('');
    this.jumpInput.value = '';
    this.navigate({ view: 'data', instance: undefined, oid, path: [] });
    this.views.data?.focus();
  }

  private setJumpError(message: string): void {
    this.jumpError.textContent = message;
    this.jumpInput.setAttribute('aria-invalid', message === '' ? 'false' : 'true');
  }

  private async storageChanged(): Promise<void> {
    this.loader.clear();
    try {
      await this.types.load();
    } catch {
      // keep the old dictionary; unknown type ids are fetched again on demand
    }
    await this.views.refresh((message) => this.notify(message, 'error'));
    this.notify(`Storage changed — view refreshed at ${formatTime(new Date())}`, 'change');
  }

  private onDictionaryReloaded(): void {
    this.views.data?.redraw();
    this.views.dictionary?.refresh();
  }

  /** A look at the statistics failed: lost connection, or an error answer (e.g. an unknown instance). */
  private liveCheckFailed(error: unknown): void {
    // The server answers, with an error: no lost connection (a start problem is shown where it matters).
    if (this.status.checkFailed(error) === 'answers') this.setOnline();
  }

  private setOnline(): void {
    if (!this.status.answers()) return;
    if (!this.types.loaded) {
      void this.boot();
      return;
    }
    // What failed while it did not answer is loaded again.
    if (this.views.data?.failed === true) void this.onRoute();
    else void this.views.data?.retryUnreachable();
  }

  private updateLiveStatus(): void {
    this.status.update();
  }

  notify(message: string, kind: 'info' | 'change' | 'error'): void {
    this.status.notify(message, kind);
  }

  /** Errors the viewer did not expect: shown, never a blank page. */
  showUnexpected(error: unknown): void {
    this.notify(errorMessage(error), 'error');
  }
}

export function hostElement(): HTMLElement {
  const el = document.getElementById('app');
  if (el === null) throw new Error('missing #app element');
  return el;
}
