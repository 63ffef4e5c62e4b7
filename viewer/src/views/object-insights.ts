import { errorMessage } from '../model/api.js';
import type { Member, ObjectView, Step, Version } from '../model/api-v1.js';
import type { ViewHost } from '../shell/view-host.js';
import { shortTypeName } from '../model/dictionary.js';
import { clear, h } from '../ui/dom.js';
import { groupDigits, humanBytes, quote } from '../ui/format.js';
import { RetainedInsight } from './retained-insight.js';

/**
 * What the object panel adds from storage-inspector's own API: the shortest path from the root
 * (breadcrumbs, so an object opened by id shows where it lives), who refers to it (paged, each a
 * link, with the member it is held by), and its versions still on disk with a diff against the
 * current one.
 */

const REFERRERS_PAGE = 20;

export class ObjectInsights {
  readonly element: HTMLElement;
  private readonly path: HTMLElement;
  private readonly referrers: HTMLElement;
  private readonly versions: HTMLElement;
  private readonly diff: HTMLElement;
  /** What keeps it alive, what deleting it would free (the dominator tree). */
  private readonly retained: RetainedInsight;
  private oid: string | undefined;
  private generation = 0;

  constructor(private readonly app: ViewHost) {
    this.path = h('div', { class: 'insight-body' });
    this.referrers = h('div', { class: 'insight-body' });
    this.versions = h('div', { class: 'insight-body' });
    this.diff = h('div', { class: 'insight-body diff' });
    this.retained = new RetainedInsight(app);
    this.element = h(
      'div',
      { class: 'insights' },
      h('section', { class: 'insight path-section' }, h('h3', null, 'Path from root'), this.path),
      this.retained.element,
      h('section', { class: 'insight referrers-section' }, h('h3', null, 'Referenced by'), this.referrers),
      h('section', { class: 'insight versions-section' }, h('h3', null, 'Versions'), this.versions, this.diff),
    );
  }

  /** Shows the insights of an object (kept as they are when it is the same object). */
  show(oid: string): void {
    if (oid === this.oid) return;
    this.reload(oid);
  }

  /** Loads again (after the storage changed). */
  reload(oid = this.oid): void {
    if (oid === undefined) return;
    this.oid = oid;
    const generation = ++this.generation;
    for (const body of [this.path, this.referrers, this.versions]) clear(body, h('p', { class: 'hint' }, 'Loading…'));
    clear(this.diff);
    this.retained.load(oid);
    const waiting = (body: HTMLElement) => (p: { phase: string; percent: number }) => {
      if (generation === this.generation) clear(body, h('p', { class: 'hint building' }, `The server is building its graph index (${p.percent} %)…`));
    };
    const fail = (body: HTMLElement) => (error: unknown) => {
      if (generation === this.generation) clear(body, h('p', { class: 'v-error' }, errorMessage(error)));
    };
    this.app.v1
      .get<{ reachable: boolean; paths: Step[][] }>(`/objects/${oid}/paths?limit=1`, 'the path from the root', waiting(this.path))
      .then((p) => generation === this.generation && this.renderPath(p.reachable, p.paths[0]), fail(this.path));
    void this.loadReferrers(oid, 0, generation, waiting(this.referrers), fail(this.referrers));
    this.app.v1
      .get<{ versions: Version[] }>(`/objects/${oid}/versions`, 'the versions', waiting(this.versions))
      .then((v) => generation === this.generation && this.renderVersions(oid, v.versions), fail(this.versions));
  }

  private link(oid: string, label: string, summary?: string): HTMLElement {
    return h('a', { class: 'ref-link', href: this.app.href({ view: 'data', instance: undefined, oid, path: [] }), title: summary === undefined ? `object ${oid}` : `object ${oid}: ${summary}` }, label);
  }

  private renderPath(reachable: boolean, path: readonly Step[] | undefined): void {
    if (!reachable || path === undefined) {
      clear(this.path, h('p', { class: 'unreachable' }, 'Not reachable from the root: this object is garbage (no chain of references leads to it).'));
      return;
    }
    const crumbs = path.map((step, i) =>
      h(
        'li',
        { class: 'crumb-step' },
        step.via === null ? null : h('span', { class: 'via' }, step.via.text, step.via.key?.text === undefined ? null : ` (key ${quote(step.via.key.text, 30)})`),
        this.link(step.objectId, i === 0 ? 'Roots' : shortTypeName(step.typeName), step.summary),
      ),
    );
    clear(this.path, h('ol', { class: 'crumbs-line path-crumbs', 'aria-label': 'Shortest path from the roots' }, crumbs));
  }

  private async loadReferrers(oid: string, offset: number, generation: number, onWait: (p: { phase: string; percent: number }) => void, fail: (error: unknown) => void): Promise<void> {
    try {
      const page = await this.app.v1.get<{ total: number; referrers: { objectId: string; typeName: string; via: Step['via']; summary?: string }[] }>(
        `/objects/${oid}/referrers?offset=${offset}&limit=${REFERRERS_PAGE}`,
        'the referrers',
        onWait,
      );
      if (generation !== this.generation) return;
      if (page.total === 0) {
        clear(this.referrers, h('p', { class: 'hint' }, 'No object refers to this one.'));
        return;
      }
      const more = offset + REFERRERS_PAGE < page.total;
      const nav = h(
        'div',
        { class: 'pager' },
        h('span', { class: 'hint' }, `${groupDigits(offset + 1)}–${groupDigits(Math.min(page.total, offset + REFERRERS_PAGE))} of ${groupDigits(page.total)}`),
        offset > 0 ? h('button', { type: 'button', class: 'button small', onclick: () => void this.loadReferrers(oid, Math.max(0, offset - REFERRERS_PAGE), generation, onWait, fail) }, '‹ Previous') : null,
        more ? h('button', { type: 'button', class: 'button small', onclick: () => void this.loadReferrers(oid, offset + REFERRERS_PAGE, generation, onWait, fail) }, 'Next ›') : null,
      );
      clear(
        this.referrers,
        h(
          'ul',
          { class: 'referrer-list' },
          page.referrers.map((r) =>
            h(
              'li',
              null,
              this.link(r.objectId, `${shortTypeName(r.typeName)} ${r.objectId}`, r.summary),
              r.via === null ? null : h('span', { class: 'via' }, ` via ${[r.via.text, ...(r.via.others ?? [])].join(', ')}${r.via.key?.text === undefined ? '' : ` (key ${quote(r.via.key.text, 30)})`}`),
              r.summary === undefined ? null : h('div', { class: 'summary' }, r.summary),
            ),
          ),
        ),
        nav,
      );
    } catch (error) {
      fail(error);
    }
  }

  private renderVersions(oid: string, versions: readonly Version[]): void {
    if (versions.length <= 1) {
      clear(this.versions, h('p', { class: 'hint' }, 'Only the current version is on disk.'));
      return;
    }
    clear(
      this.versions,
      h(
        'ol',
        { class: 'version-list', start: 0 },
        versions.map((v) =>
          h(
            'li',
            null,
            h('span', { class: 'version-when' }, v.commit === null ? 'commit unknown' : `${v.commit.kind === 'store' ? 'stored' : v.commit.kind === 'transfer' ? 'moved by housekeeping' : 'in a file created'} ${v.commit.time.replace('T', ' ').replace('Z', ' UTC')}`),
            h('span', { class: 'hint' }, ` ${baseName(v.file)} @ ${groupDigits(v.offset)}, ${humanBytes(v.length)}${v.typeName === versions[0]!.typeName ? '' : `, ${shortTypeName(v.typeName)}`}`),
            v.current ? h('span', { class: 'badge' }, 'current') : h('button', { type: 'button', class: 'button small', onclick: () => void this.showDiff(oid, v.n) }, 'Diff with current'),
          ),
        ),
      ),
    );
  }

  private async showDiff(oid: string, n: number): Promise<void> {
    clear(this.diff, h('p', { class: 'hint' }, 'Loading…'));
    try {
      const [older, current] = await Promise.all([
        this.app.v1.get<{ view: ObjectView }>(`/objects/${oid}/versions/${n}?limit=50`, `version ${n}`),
        this.app.v1.get<{ view: ObjectView }>(`/objects/${oid}/versions/0?limit=50`, 'the current version'),
      ]);
      if (this.oid !== oid) return;
      const before = new Map(older.view.members.map((m) => [memberKey(m), m]));
      const after = new Map(current.view.members.map((m) => [memberKey(m), m]));
      const rows: HTMLElement[] = [];
      for (const key of new Set([...before.keys(), ...after.keys()])) {
        const a = before.get(key);
        const b = after.get(key);
        const changed = JSON.stringify(a?.value ?? a?.elements ?? null) !== JSON.stringify(b?.value ?? b?.elements ?? null) || a?.count !== b?.count;
        rows.push(h('tr', { class: changed ? 'changed' : '' }, h('th', { scope: 'row' }, key), h('td', null, a === undefined ? '—' : memberText(a)), h('td', null, b === undefined ? '—' : memberText(b))));
      }
      clear(
        this.diff,
        h('h4', null, `Version ${n} → current`),
        h('table', { class: 'diff-table' }, h('thead', null, h('tr', null, h('th', null, 'member'), h('th', null, `version ${n}`), h('th', null, 'current'))), h('tbody', null, rows)),
      );
    } catch (error) {
      clear(this.diff, h('p', { class: 'v-error' }, errorMessage(error)));
    }
  }
}

function memberKey(m: Member): string {
  return m.declaringClass === undefined ? m.name : `${m.declaringClass}#${m.name}`;
}

function memberText(m: Member): string {
  if (m.elements !== undefined) return `${groupDigits(m.count ?? m.elements.length)} elements: ${valueText(m.elements.slice(0, 8))}${(m.count ?? 0) > 8 ? ' …' : ''}`;
  return valueText(m.value ?? null);
}

function valueText(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return quote(value, 60);
  if (typeof value !== 'object') return String(value);
  // An empty collection reads "empty" here as in the tree and in summaries.
  if (Array.isArray(value)) return value.length === 0 ? 'empty' : `[${value.map(valueText).join(', ')}]`;
  const ref = value as { objectId?: string; typeName?: string | null; text?: string };
  if (typeof ref.objectId === 'string') return ref.text !== undefined ? quote(ref.text, 40) : `${shortTypeName(ref.typeName ?? 'missing')} ${ref.objectId}`;
  return `{${Object.entries(value).map(([k, v]) => `${k}: ${valueText(v)}`).join(', ')}}`;
}

function baseName(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return i < 0 ? path : path.slice(i + 1);
}
