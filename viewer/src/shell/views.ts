import { errorMessage } from '../model/api.js';
import { AnalysisView } from '../views/analysis-view.js';
import { DataView } from '../views/data-view.js';
import { DictionaryView } from '../views/dictionary-view.js';
import { HistoryView } from '../views/history-view.js';
import type { QueryView } from '../views/query-view.js';
import { RetainedView } from '../views/retained-view.js';
import { SearchView } from '../views/search-view.js';
import { StatisticsView } from '../views/statistics-view.js';
import { TypesView } from '../views/types-view.js';
import type { Route } from './router.js';
import type { ViewHost } from './view-host.js';

export type ViewName = Route['view'];

/** The route each tab opens (the Data tab remembers where it was). */
export function defaultRoute(view: Exclude<ViewName, 'data'>): Route {
  switch (view) {
    case 'dictionary':
      return { view, instance: undefined, typeId: undefined, query: '' };
    case 'statistics':
    case 'analysis':
      return { view, instance: undefined };
    case 'retained':
      return { view, instance: undefined, oid: undefined };
    case 'types':
      return { view, instance: undefined, typeId: undefined, offset: 0 };
    case 'search':
      return { view, instance: undefined, query: '', type: '', offset: 0 };
    case 'query':
      return { view, instance: undefined, sql: '' };
    case 'history':
      return { view, instance: undefined, timestamp: undefined };
  }
}

/** Views that need storage-inspector's own API (not offered against the Java service). */
export const API_V1_VIEWS: readonly ViewName[] = ['types', 'analysis', 'retained', 'search', 'query', 'history'];

/** Tabs in the order shown, with their labels. */
export const TABS: readonly (readonly [ViewName, string])[] = [
  ['data', 'Data'],
  ['types', 'Types'],
  ['analysis', 'Analysis'],
  ['retained', 'Retained'],
  ['search', 'Search'],
  ['query', 'Query'],
  ['history', 'History'],
  ['dictionary', 'Dictionary'],
  ['statistics', 'Statistics'],
];

/**
 * The views of one storage, each made on its first visit and kept while the storage is shown:
 * which element to mount for a route, what to load, the page title; all of them refreshed when
 * the storage changes.
 */
export class Views {
  data: DataView | undefined;
  dictionary: DictionaryView | undefined;
  private statistics: StatisticsView | undefined;
  private types: TypesView | undefined;
  private analysis: AnalysisView | undefined;
  private retained: RetainedView | undefined;
  private search: SearchView | undefined;
  private query: QueryView | undefined;
  private history: HistoryView | undefined;

  constructor(
    private readonly host: ViewHost,
    private readonly mount: (element: HTMLElement, title: string) => void,
  ) {}

  async show(route: Route): Promise<void> {
    const app = this.host;
    switch (route.view) {
      case 'data': {
        const view = (this.data ??= new DataView(app));
        this.mount(view.element, route.oid === undefined ? 'Data' : `Object ${route.oid}`);
        await view.show(route.oid, route.path);
        // Keyboard users start in the tree (arrow keys work at once), unless they are elsewhere.
        if (document.activeElement === null || document.activeElement === document.body) view.focus();
        break;
      }
      case 'dictionary': {
        const view = (this.dictionary ??= new DictionaryView(app));
        this.mount(view.element, 'Dictionary');
        view.show(route.typeId, route.query);
        break;
      }
      case 'statistics': {
        const view = (this.statistics ??= new StatisticsView(app));
        this.mount(view.element, 'Statistics');
        await view.show();
        break;
      }
      case 'types': {
        const view = (this.types ??= new TypesView(app));
        this.mount(view.element, 'Types');
        await view.show(route.typeId, route.offset, route.reachable, route.grid);
        break;
      }
      case 'analysis': {
        const view = (this.analysis ??= new AnalysisView(app));
        this.mount(view.element, 'Analysis');
        await view.show();
        break;
      }
      case 'retained': {
        const view = (this.retained ??= new RetainedView(app));
        this.mount(view.element, 'Retained');
        await view.show(route.oid);
        break;
      }
      case 'search': {
        const view = (this.search ??= new SearchView(app));
        this.mount(view.element, 'Search');
        await view.show(route.query, route.type, route.offset);
        break;
      }
      case 'query': {
        // CodeMirror comes with this view only: its own chunk, loaded on the first visit.
        if (this.query === undefined) {
          const { QueryView } = await import('../views/query-view.js');
          this.query ??= new QueryView(app);
        }
        this.mount(this.query.element, 'Query');
        await this.query.show(route.sql);
        break;
      }
      case 'history': {
        const view = (this.history ??= new HistoryView(app));
        this.mount(view.element, route.timestamp === undefined ? 'History' : `Commit ${route.timestamp}`);
        await view.show(route.timestamp, route.compare);
        break;
      }
    }
  }

  /** The storage changed: every view made so far loads again. */
  async refresh(notify: (message: string) => void): Promise<void> {
    await Promise.all([
      this.data?.refresh().catch((error: unknown) => notify(errorMessage(error))),
      this.data?.refreshInsights(),
      this.statistics?.refresh(),
      this.types?.refresh(),
      this.analysis?.refresh(),
      this.retained?.refresh(),
      this.history?.refresh(),
    ]);
    this.dictionary?.refresh();
  }
}
