import { errorMessage } from '../model/api.js';
import type { ViewHost } from '../shell/view-host.js';
import { clear, h } from '../ui/dom.js';
import { groupDigits, humanBytes } from '../ui/format.js';
import { GigaMapGrid } from './gigamap-grid.js';

/**
 * An EclipseStore GigaMap in the object panel, as what it is: its entities in entity-id order
 * (paged, one line each, each a link), a Values tab where the server runs SQL (the same pages as
 * a grid of the entities' values, see gigamap-grid.ts) and an Indices tab (each index's keys with
 * their entity counts as bars; a key opens its entities). Everything else comes from
 * `/api/v1/objects/{oid}/gigamap…`.
 */

export const GIGAMAP_TYPE = 'org.eclipse.store.gigamap.types.GigaMap$Default';
const PAGE = 50;
const KEYS_PAGE = 30;

interface Entity {
  readonly entityId: number;
  readonly objectId: string;
  readonly typeName: string | null;
  readonly summary: string;
}

interface IndexInfo {
  readonly name: string;
  readonly kind: string;
  readonly unique: boolean;
  readonly keys: number;
  readonly entities: number;
  readonly bitmapBytes: number;
  readonly parts: readonly { readonly name: string }[];
}

interface GigaMapInfo {
  readonly size: string;
  readonly listed: number;
  readonly damaged: boolean;
  readonly problems: readonly string[];
  readonly level1Segments: number;
  readonly level2Segments: number;
  readonly indices: readonly IndexInfo[];
}

/** A bar of a width in percent (set through the style property: the viewer's CSP allows no style attributes). */
function bar(percent: number): HTMLElement {
  const element = h('span', { class: 'gigamap-bar' });
  element.style.width = `${percent.toFixed(1)}%`;
  return element;
}

export class GigaMapPanel {
  readonly element: HTMLElement;
  private readonly head: HTMLElement;
  private readonly body: HTMLElement;
  private readonly entitiesTab: HTMLButtonElement;
  private readonly valuesTab: HTMLButtonElement;
  private readonly indicesTab: HTMLButtonElement;
  private valuesGrid: GigaMapGrid | undefined;
  private oid: string | undefined;
  private info: GigaMapInfo | undefined;
  private generation = 0;

  constructor(private readonly app: ViewHost) {
    this.head = h('p', { class: 'hint' });
    this.body = h('div', { class: 'insight-body gigamap-body' });
    this.entitiesTab = h('button', { type: 'button', class: 'gigamap-tab', role: 'tab', onclick: () => this.showEntities(0) }, 'Entities');
    this.valuesTab = h('button', { type: 'button', class: 'gigamap-tab', role: 'tab', hidden: !app.sqlAvailable, onclick: () => this.showValues(0) }, 'Values');
    this.indicesTab = h('button', { type: 'button', class: 'gigamap-tab', role: 'tab', onclick: () => this.showIndices() }, 'Indices');
    this.element = h(
      'section',
      { class: 'insight gigamap-section' },
      h('h3', null, 'GigaMap'),
      this.head,
      h('div', { role: 'tablist', class: 'gigamap-tabs' }, this.entitiesTab, this.valuesTab, this.indicesTab),
      this.body,
    );
  }

  show(oid: string): void {
    if (oid === this.oid) return;
    this.oid = oid;
    this.info = undefined;
    const generation = ++this.generation;
    clear(this.head, 'Loading…');
    clear(this.body);
    this.app.v1.get<GigaMapInfo>(`/objects/${oid}/gigamap`, 'the GigaMap').then(
      (info) => {
        if (generation !== this.generation) return;
        this.info = info;
        const damaged = info.damaged ? h('span', { class: 'v-error' }, ` Damaged: ${info.problems.join('; ')}`) : null;
        clear(this.head, `${groupDigits(info.listed)} entities (size ${groupDigits(Number(info.size))}) in ${groupDigits(info.level1Segments)} segments, ${info.indices.length} indices.`, damaged);
        this.showEntities(0);
      },
      (error: unknown) => generation === this.generation && clear(this.head, h('span', { class: 'v-error' }, errorMessage(error))),
    );
  }

  private select(tab: 'entities' | 'values' | 'indices'): void {
    this.entitiesTab.setAttribute('aria-selected', String(tab === 'entities'));
    this.valuesTab.setAttribute('aria-selected', String(tab === 'values'));
    this.indicesTab.setAttribute('aria-selected', String(tab === 'indices'));
  }

  private link(oid: string, label: string): HTMLElement {
    return h('a', { class: 'ref-link', href: this.app.href({ view: 'data', instance: undefined, oid, path: [] }), title: `object ${oid}` }, label);
  }

  private entityList(entities: readonly Entity[]): HTMLElement {
    return h(
      'table',
      { class: 'gigamap-entities' },
      h('thead', null, h('tr', null, h('th', { class: 'gigamap-num' }, 'entity id'), h('th', { class: 'gigamap-oid' }, 'object'), h('th', null, 'summary'))),
      h(
        'tbody',
        null,
        // Each its own column: the summary is cut with an ellipsis (whole on hover), never runs into the ids.
        entities.map((e) =>
          h(
            'tr',
            null,
            h('td', { class: 'gigamap-num' }, String(e.entityId)),
            h('td', { class: 'gigamap-oid' }, this.link(e.objectId, e.objectId)),
            h('td', { class: 'gigamap-summary', title: e.summary }, e.summary),
          ),
        ),
      ),
    );
  }

  private pager(offset: number, total: number, page: number, go: (offset: number) => void): HTMLElement {
    const last = Math.max(0, Math.ceil(total / page) - 1) * page;
    const button = (label: string, to: number, enabled: boolean) => h('button', { type: 'button', disabled: !enabled, onclick: () => go(to) }, label);
    return h(
      'div',
      { class: 'gigamap-pager' },
      button('« first', 0, offset > 0),
      button('‹ previous', Math.max(0, offset - page), offset > 0),
      h('span', { class: 'hint' }, total === 0 ? 'none' : `${groupDigits(offset + 1)}–${groupDigits(Math.min(total, offset + page))} of ${groupDigits(total)}`),
      button('next ›', offset + page, offset + page < total),
      button('last »', last, offset < last),
    );
  }

  private showEntities(offset: number): void {
    const oid = this.oid;
    if (oid === undefined || this.info === undefined) return;
    this.select('entities');
    const generation = ++this.generation;
    const total = this.info.listed;
    this.app.v1.get<{ entities: Entity[] }>(`/objects/${oid}/gigamap/entities?offset=${offset}&limit=${PAGE}`, 'the entities').then(
      (page) => generation === this.generation && clear(this.body, this.pager(offset, total, PAGE, (o) => this.showEntities(o)), this.entityList(page.entities)),
      (error: unknown) => generation === this.generation && clear(this.body, h('p', { class: 'v-error' }, errorMessage(error))),
    );
  }

  /** A page of entities as a grid of their values (rows of their type's SQL table). */
  private showValues(offset: number): void {
    const oid = this.oid;
    if (oid === undefined || this.info === undefined) return;
    this.select('values');
    const generation = ++this.generation;
    const total = this.info.listed;
    this.valuesGrid ??= new GigaMapGrid(this.app);
    const grid = this.valuesGrid;
    this.app.v1.get<{ entities: Entity[] }>(`/objects/${oid}/gigamap/entities?offset=${offset}&limit=${PAGE}`, 'the entities').then(
      (page) => {
        if (generation !== this.generation) return;
        clear(this.body, this.pager(offset, total, PAGE, (o) => this.showValues(o)), grid.element);
        void grid.show(page.entities);
      },
      (error: unknown) => generation === this.generation && clear(this.body, h('p', { class: 'v-error' }, errorMessage(error))),
    );
  }

  private showIndices(): void {
    if (this.info === undefined) return;
    this.select('indices');
    ++this.generation;
    const rows = this.info.indices.map((i) =>
      h(
        'li',
        null,
        h('button', { type: 'button', class: 'link-button gigamap-index', onclick: () => this.showKeys(i, 0) }, i.name),
        h(
          'span',
          { class: 'hint' },
          ` ${i.kind}${i.unique ? ', unique' : ''}${i.parts.length > 0 ? ` (${i.parts.length} parts)` : ''}: ${groupDigits(i.keys)} keys, ${groupDigits(i.entities)} entities, bitmaps ${humanBytes(i.bitmapBytes)}`,
        ),
      ),
    );
    clear(this.body, rows.length === 0 ? h('p', { class: 'hint' }, 'No indices.') : h('ul', { class: 'gigamap-indices' }, rows));
  }

  private showKeys(index: IndexInfo, offset: number): void {
    const oid = this.oid;
    if (oid === undefined) return;
    const generation = ++this.generation;
    const base = `/objects/${oid}/gigamap/indices/${encodeURIComponent(index.name)}`;
    this.app.v1.get<{ total: number; keys: { key: string; count: number }[] }>(`${base}/keys?order=count&offset=${offset}&limit=${KEYS_PAGE}`, 'the keys').then(
      (page) => {
        if (generation !== this.generation) return;
        const most = Math.max(1, ...page.keys.map((k) => k.count));
        const bars = page.keys.map((k) =>
          h(
            'li',
            { class: 'gigamap-num' },
            h('button', { type: 'button', class: 'link-button gigamap-key', title: k.key, onclick: () => this.showKeyEntities(index, k.key, 0) }, k.key),
            bar((100 * k.count) / most),
            h('span', { class: 'gigamap-num' }, groupDigits(k.count)),
          ),
        );
        clear(
          this.body,
          h('button', { type: 'button', class: 'link-button', onclick: () => this.showIndices() }, '‹ indices'),
          h('h4', { class: 'gigamap-num' }, `${index.name}: keys by entities`),
          this.pager(offset, page.total, KEYS_PAGE, (o) => this.showKeys(index, o)),
          h('ul', { class: 'gigamap-keys' }, bars),
        );
      },
      (error: unknown) => generation === this.generation && clear(this.body, h('p', { class: 'v-error' }, errorMessage(error))),
    );
  }

  private showKeyEntities(index: IndexInfo, key: string, offset: number): void {
    const oid = this.oid;
    if (oid === undefined) return;
    const generation = ++this.generation;
    const url = `/objects/${oid}/gigamap/indices/${encodeURIComponent(index.name)}/entities?key=${encodeURIComponent(key)}&offset=${offset}&limit=${PAGE}`;
    this.app.v1.get<{ total: number; entities: Entity[] }>(url, 'the entities of the key').then(
      (page) =>
        generation === this.generation &&
        clear(
          this.body,
          h('button', { type: 'button', class: 'link-button', onclick: () => this.showKeys(index, 0) }, `‹ ${index.name} keys`),
          h('h4', { class: 'gigamap-num' }, `${index.name} = ${key}`),
          this.pager(offset, page.total, PAGE, (o) => this.showKeyEntities(index, key, o)),
          this.entityList(page.entities),
        ),
      (error: unknown) => generation === this.generation && clear(this.body, h('p', { class: 'v-error' }, errorMessage(error))),
    );
  }
}
