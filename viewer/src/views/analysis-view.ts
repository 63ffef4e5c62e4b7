import { errorMessage } from '../model/api.js';
import type { Analysis, TypeInfo } from '../model/api-v1.js';
import type { ViewHost } from '../shell/view-host.js';
import { displayTypeName } from '../model/dictionary.js';
import { clear, h } from '../ui/dom.js';
import { groupDigits, humanBytes, percent } from '../ui/format.js';
import { card, legendOf, stackedBar } from './charts.js';
import { machineryOf, machineryText, type Machinery } from './gigamap-machinery.js';

/**
 * What is garbage and what is wasted: reachable versus unreachable objects, garbage by type, ids
 * referenced but not stored with who refers to them, and per data file the bytes that are live,
 * garbage or superseded versions.
 */
export class AnalysisView {
  readonly element: HTMLElement;
  private readonly body: HTMLElement;
  private loaded = false;

  constructor(private readonly app: ViewHost) {
    this.body = h('div', { class: 'stats-body' });
    const refresh = h('button', { type: 'button', class: 'button', onclick: () => void this.refresh() }, '↻ Refresh');
    this.element = h('section', { class: 'view page-view analysis-view', 'aria-label': 'Analysis' }, h('div', { class: 'stats-toolbar' }, h('h2', null, 'Garbage and waste'), refresh), this.body);
  }

  async show(): Promise<void> {
    if (!this.loaded) await this.refresh();
  }

  async refresh(): Promise<void> {
    clear(this.body, h('p', { class: 'hint' }, 'Analysing…'));
    try {
      const a = await this.app.v1.get<Analysis>('/analysis?examples=50&referrers=5', 'the analysis', (p) =>
        clear(this.body, h('p', { class: 'hint building' }, `The server is building its graph index (${p.phase}, ${p.percent} %). The analysis appears when it is ready.`)),
      );
      const types = await this.app.v1.get<{ types: TypeInfo[] }>('/types?limit=10000', 'the types');
      this.loaded = true;
      this.render(a, machineryOf(types.types));
    } catch (error) {
      clear(this.body, h('div', { class: 'problem', role: 'alert' }, h('strong', null, 'Cannot load the analysis. '), errorMessage(error)));
    }
  }

  private render(a: Analysis, machinery: Machinery | undefined): void {
    const superseded = a.files.reduce((n, f) => n + f.supersededBytes, 0);
    const total = a.files.reduce((n, f) => n + f.totalBytes, 0);
    const cards = h(
      'div',
      { class: 'cards' },
      card('Reachable', humanBytes(a.reachable.bytes), `${groupDigits(a.reachable.count)} objects reachable from the roots`),
      card('Garbage', humanBytes(a.unreachable.bytes), `${groupDigits(a.unreachable.count)} objects no longer reachable from the roots`, a.unreachable.count > 0 ? 'warn' : ''),
      card('Superseded', humanBytes(superseded), 'older versions of objects still in the data files'),
      card('Waste', percent(a.unreachable.bytes + superseded, total), `garbage and superseded bytes of ${groupDigits(total)} bytes in the files`),
      card('Missing ids', groupDigits(a.missingReferences.count), 'ids that are referenced but not stored', a.missingReferences.count > 0 ? 'bad' : ''),
      machinery === undefined ? null : card('GigaMap machinery', humanBytes(machinery.bytes), machineryText(machinery)),
    );
    const garbageMax = Math.max(1, ...a.unreachable.byType.map((t) => t.bytes));
    const garbage =
      a.unreachable.byType.length === 0
        ? h('p', { class: 'hint' }, 'No garbage: every object is reachable from the roots.')
        : h(
            'div',
            { class: 'chart', role: 'list', 'aria-label': 'Garbage by type' },
            a.unreachable.byType.map((t) =>
              h(
                'a',
                { class: 'bar-row', role: 'listitem', href: this.app.href({ view: 'types', instance: undefined, typeId: t.typeId, offset: 0, reachable: false }), title: `${displayTypeName(t.typeName)}: ${groupDigits(t.count)} unreachable objects, ${groupDigits(t.bytes)} bytes; click to list them` },
                h('div', { class: 'bar-label' }, displayTypeName(t.typeName)),
                stackedBar([{ value: t.bytes, kind: 'garbage' }], garbageMax, `${groupDigits(t.bytes)} bytes`),
                h('div', { class: 'bar-figures' }, humanBytes(t.bytes), h('span', { class: 'ratio' }, `${groupDigits(t.count)} obj`)),
              ),
            ),
          );
    const missing =
      a.missingReferences.count === 0
        ? h('p', { class: 'hint' }, 'None: every referenced id is stored (or a JDK constant).')
        : h(
            'ul',
            { class: 'missing-list' },
            a.missingReferences.examples.map((m) =>
              h(
                'li',
                null,
                h('code', null, m.objectId),
                ' ← ',
                m.referrers.flatMap((r, i) => [
                  i > 0 ? ', ' : null,
                  h('a', { class: 'ref-link', href: this.app.href({ view: 'data', instance: undefined, oid: r.objectId, path: [] }) }, r.objectId),
                  h('span', { class: 'hint' }, ` ${displayTypeName(r.typeName)}${r.via === null ? '' : ` via ${r.via.text}`}`),
                ]),
                m.referrerCount > m.referrers.length ? h('span', { class: 'hint' }, ` … ${groupDigits(m.referrerCount)} in all`) : null,
              ),
            ),
          );
    const fileMax = Math.max(1, ...a.files.map((f) => f.totalBytes));
    const files = h(
      'div',
      { class: 'chart', role: 'list', 'aria-label': 'Bytes per data file' },
      a.files.map((f) => {
        const live = f.liveBytes - f.unreachableBytes;
        const title = `${f.file}: ${groupDigits(live)} live, ${groupDigits(f.unreachableBytes)} garbage, ${groupDigits(f.supersededBytes)} superseded bytes`;
        return h(
          'div',
          { class: 'bar-row', role: 'listitem', title },
          h('div', { class: 'bar-label' }, baseName(f.file)),
          stackedBar(
            [
              { value: live, kind: 'live' },
              { value: f.unreachableBytes, kind: 'garbage' },
              { value: f.supersededBytes, kind: 'dead' },
            ],
            fileMax,
            title,
          ),
          h('div', { class: 'bar-figures' }, humanBytes(f.totalBytes), h('span', { class: 'ratio' }, `${percent(f.unreachableBytes + f.supersededBytes, f.totalBytes)} waste`)),
        );
      }),
    );
    clear(
      this.body,
      cards,
      machinery === undefined ? null : h('p', { class: 'hint gigamap-machinery' }, machineryText(machinery)),
      h('section', null, h('h3', null, 'Garbage by type'), h('p', { class: 'hint' }, 'Latest records of objects that cannot be reached from the roots (MicroStream 4 keeps them until its storage GC is enabled).'), garbage),
      h('section', null, h('h3', null, `Missing references (${groupDigits(a.missingReferences.count)})`), missing),
      h(
        'section',
        null,
        h('h3', null, 'Per data file'),
        legendOf([
          ['live', 'live (reachable)'],
          ['garbage', 'garbage'],
          ['dead', 'superseded versions'],
        ]),
        files,
      ),
    );
  }
}

function baseName(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return i < 0 ? path : path.slice(i + 1);
}
