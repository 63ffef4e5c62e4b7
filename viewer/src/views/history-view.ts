import { errorMessage } from '../model/api.js';
import { HistoryApi, type Commit, type CommitDetail, type CommitList, type DiffAnswer, type DiffSides } from '../model/history-api.js';
import { formatRoute, type Compare } from '../shell/router.js';
import type { ViewHost } from '../shell/view-host.js';
import { clear, h } from '../ui/dom.js';
import { groupDigits, humanBytes } from '../ui/format.js';
import { objectSummaries } from '../grid/summaries.js';
import { addSummaries, memberChangeList, objectHead, type ObjectHref } from './history-changes.js';
import { shortTime, timeline } from './history-timeline.js';
import './history.css';

/** Commits per page of the list and the timeline, the zoom steps. */
const ZOOMS = [20, 50, 100, 200, 500] as const;
/** Objects of a commit or a comparison loaded per "more". */
const OBJECTS_PAGE = 20;

/**
 * The History view: the storage's commits newest first (a timeline of bytes and objects per
 * commit, and a list), a commit opened to what it stored (types, objects new or updated, each
 * updated object's member changes against its version before, links to the objects), and a
 * comparison of two points of the storage or of two served storages in the same layout.
 */
export class HistoryView {
  readonly element: HTMLElement;
  private readonly history: HistoryApi;
  private readonly listPane: HTMLElement;
  private readonly detail: HTMLElement;
  private readonly count: HTMLElement;
  private readonly fromInput: HTMLInputElement;
  private readonly toInput: HTMLInputElement;
  private readonly storagesForm: HTMLFormElement;
  private readonly aSelect: HTMLSelectElement;
  private readonly bSelect: HTMLSelectElement;
  private offset = 0;
  private zoom: number = ZOOMS[1];
  private list: CommitList | undefined;
  private timestamp: string | undefined;
  private compare: Compare | undefined;
  /** What the detail panel shows, so that a route to the same thing does not load it again. */
  private shownKey: string | undefined;
  /** Bumped by every load of the detail panel: an answer to an older one is dropped. */
  private epoch = 0;

  constructor(private readonly app: ViewHost) {
    this.history = new HistoryApi(app.v1);
    this.count = h('span', { class: 'hint' });
    this.fromInput = h('input', { type: 'text', class: 'hv-point', name: 'from', 'aria-label': 'From (commit number, timestamp or date-time)', placeholder: 'from: commit, timestamp or time', spellcheck: 'false', autocomplete: 'off' });
    this.toInput = h('input', { type: 'text', class: 'hv-point', name: 'to', 'aria-label': 'To (empty: now)', placeholder: 'to: now', spellcheck: 'false', autocomplete: 'off' });
    const pointsForm = h('form', { class: 'hv-compare' }, h('span', { class: 'hv-compare-label' }, 'Compare'), this.fromInput, h('span', { 'aria-hidden': 'true' }, '→'), this.toInput, h('button', { type: 'submit', class: 'button' }, 'Compare'));
    pointsForm.addEventListener('submit', (event) => {
      event.preventDefault();
      const from = this.fromInput.value.trim();
      if (from === '') {
        this.fromInput.focus();
        return;
      }
      this.app.navigate({ view: 'history', instance: undefined, timestamp: undefined, compare: { from, to: this.toInput.value.trim() } });
    });
    this.aSelect = h('select', { class: 'hv-storage', 'aria-label': 'Storage before' });
    this.bSelect = h('select', { class: 'hv-storage', 'aria-label': 'Storage after' });
    this.storagesForm = h('form', { class: 'hv-compare', hidden: true }, h('span', { class: 'hv-compare-label' }, 'Storages'), this.aSelect, h('span', { 'aria-hidden': 'true' }, '→'), this.bSelect, h('button', { type: 'submit', class: 'button' }, 'Compare'));
    this.storagesForm.addEventListener('submit', (event) => {
      event.preventDefault();
      this.app.navigate({ view: 'history', instance: undefined, timestamp: undefined, compare: { a: this.aSelect.value, b: this.bSelect.value } });
    });
    // The first list of a storage's state reads every commit's bytes once (seconds for a large storage).
    this.listPane = h('div', { class: 'hv-list-pane' }, h('p', { class: 'hint' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), ' Reading the commits…'));
    this.detail = h('div', { class: 'hv-detail', 'aria-live': 'polite' });
    this.element = h(
      'section',
      { class: 'view page-view history-view', 'aria-label': 'History' },
      h('div', { class: 'stats-toolbar hv-toolbar' }, h('h2', null, 'History'), this.count, pointsForm, this.storagesForm),
      h('div', { class: 'hv-layout' }, this.listPane, this.detail),
    );
  }

  async show(timestamp: string | undefined, compare: Compare | undefined): Promise<void> {
    this.timestamp = timestamp;
    this.compare = compare;
    this.element.classList.toggle('has-detail', timestamp !== undefined || compare !== undefined);
    this.fillStorages();
    if (compare !== undefined && 'from' in compare) {
      this.fromInput.value = compare.from;
      this.toInput.value = compare.to;
    }
    const listing = this.list === undefined ? this.loadList() : Promise.resolve(this.renderList());
    await Promise.all([listing, this.showDetail(false)]);
  }

  /** The storage changed: new commits at the top of the list; a comparison with "now" again. */
  async refresh(): Promise<void> {
    const now = this.compare !== undefined && 'from' in this.compare && this.compare.to === '';
    await Promise.all([this.loadList(), now ? this.showDetail(true) : Promise.resolve()]);
  }

  private fillStorages(): void {
    const names = this.app.storageNames();
    this.storagesForm.hidden = names.length < 2;
    if (names.length < 2 || this.aSelect.options.length === names.length) return;
    this.aSelect.replaceChildren(...names.map((n) => h('option', { value: n }, n)));
    this.bSelect.replaceChildren(...names.map((n) => h('option', { value: n }, n)));
    this.bSelect.value = names[1]!;
  }

  private async loadList(): Promise<void> {
    try {
      this.list = await this.history.commits(this.offset, this.zoom);
      this.renderList();
    } catch (error) {
      clear(this.listPane, h('div', { class: 'problem', role: 'alert' }, h('strong', null, 'Cannot load the commits. '), errorMessage(error)));
    }
  }

  private renderList(): void {
    const list = this.list;
    if (list === undefined) return;
    this.count.textContent = `${groupDigits(list.total)} commit${list.total === 1 ? '' : 's'}`;
    if (list.total === 0) {
      clear(this.listPane, h('p', { class: 'hint' }, 'The transaction logs hold no commit.'));
      return;
    }
    const hrefOf = (timestamp: string): string => this.app.href({ view: 'history', instance: undefined, timestamp });
    const newest = list.offset + 1;
    const oldest = list.offset + list.commits.length;
    const step = (offset: number): void => {
      this.offset = Math.max(0, offset);
      void this.loadList();
    };
    const zoom = (i: number): void => {
      this.zoom = ZOOMS[Math.min(ZOOMS.length - 1, Math.max(0, i))]!;
      void this.loadList();
    };
    const at = ZOOMS.indexOf(this.zoom as (typeof ZOOMS)[number]);
    const pager = h(
      'div',
      { class: 'pager hv-pager' },
      h('button', { type: 'button', class: 'button small', disabled: list.offset === 0, onclick: () => step(list.offset - this.zoom) }, '‹ Newer'),
      h('span', { class: 'hint' }, `commits ${groupDigits(list.total - oldest + 1)}–${groupDigits(list.total - newest + 1)} of ${groupDigits(list.total)}`),
      h('button', { type: 'button', class: 'button small', disabled: oldest >= list.total, onclick: () => step(list.offset + this.zoom) }, 'Older ›'),
      h('span', { class: 'hv-zoom' }, h('button', { type: 'button', class: 'button small', 'aria-label': 'Fewer commits (zoom in)', disabled: at <= 0, onclick: () => zoom(at - 1) }, '+'), h('button', { type: 'button', class: 'button small', 'aria-label': 'More commits (zoom out)', disabled: at >= ZOOMS.length - 1, onclick: () => zoom(at + 1) }, '−')),
    );
    const rows = list.commits.map((c) => this.commitRow(c, hrefOf(c.timestamp)));
    clear(
      this.listPane,
      timeline(list.commits, this.timestamp, hrefOf),
      pager,
      h(
        'table',
        { class: 'hv-commits' },
        h('thead', null, h('tr', null, h('th', { class: 'hv-n' }, '#'), h('th', { class: 'hv-time' }, 'time (UTC)'), h('th', { class: 'hv-num' }, 'bytes'), h('th', { class: 'hv-num hv-objects' }, 'objects'), h('th', { class: 'hv-types' }, 'types'))),
        h('tbody', null, rows),
      ),
    );
  }

  private commitRow(c: Commit, href: string): HTMLElement {
    const types = c.types.slice(0, 3).map((t) => t.typeName.slice(t.typeName.lastIndexOf('.') + 1));
    return h(
      'tr',
      { class: `${c.timestamp === this.timestamp ? 'selected' : ''}${c.complete ? '' : ' incomplete'}`, 'data-commit': c.number },
      h('td', { class: 'hv-n' }, h('a', { href, class: 'hv-open' }, String(c.number))),
      h('td', { class: 'hv-time' }, shortTime(c.time)),
      h('td', { class: 'hv-num' }, humanBytes(c.bytes)),
      h('td', { class: 'hv-num hv-objects', title: `${groupDigits(c.newObjects)} new, ${groupDigits(c.updatedObjects)} updated` }, groupDigits(c.objects), c.newObjects > 0 ? h('span', { class: 'hv-new-count' }, ` +${groupDigits(c.newObjects)}`) : null),
      h('td', { class: 'hv-types', title: c.types.map((t) => `${t.typeName}: ${t.objects}`).join('\n') }, types.join(', '), c.types.length > 3 ? ' …' : '', c.complete ? null : h('span', { class: 'badge hv-incomplete', title: 'housekeeping has removed some of its bytes' }, 'partly gone')),
    );
  }

  private async showDetail(force: boolean): Promise<void> {
    const key = this.compare !== undefined ? `compare ${JSON.stringify(this.compare)}` : this.timestamp !== undefined ? `commit ${this.timestamp}` : 'none';
    if (!force && key === this.shownKey) return;
    this.shownKey = key;
    const epoch = ++this.epoch;
    if (this.compare !== undefined) await this.showCompare(this.compare, epoch);
    else if (this.timestamp !== undefined) await this.showCommit(this.timestamp, epoch);
    else
      clear(
        this.detail,
        h('div', { class: 'hv-empty' }, h('h3', null, 'What changed'), h('p', { class: 'hint' }, 'Open a commit to see what it stored: each object new or updated, and what changed in it since its version before. Or compare two points: commit numbers, timestamps or times (to empty: now).')),
      );
  }

  private loading(): void {
    clear(this.detail, h('p', { class: 'hint' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), ' Loading…'));
  }

  private objectHref(instance: string | undefined): ObjectHref {
    return (oid) => (instance === undefined ? this.app.href({ view: 'data', instance: undefined, oid, path: [] }) : formatRoute({ view: 'data', instance: undefined, oid, path: [] }, instance));
  }

  private async showCommit(timestamp: string, epoch: number): Promise<void> {
    this.loading();
    let detail: CommitDetail;
    try {
      detail = await this.history.commit(timestamp, 0, OBJECTS_PAGE);
    } catch (error) {
      if (epoch === this.epoch) clear(this.detail, h('div', { class: 'problem', role: 'alert' }, errorMessage(error)));
      return;
    }
    if (epoch !== this.epoch) return;
    const c = detail.commit;
    const href = this.objectHref(undefined);
    const objects = h('ol', { class: 'hv-objects' });
    const more = h('div', { class: 'hv-more' });
    const appendPage = (page: CommitDetail): void => {
      for (const o of page.objects) {
        const compared =
          o.change === 'new'
            ? null
            : o.members === null || o.comparedWith === null
              ? h('p', { class: 'hint' }, 'Its version before is no longer on disk (or the graph index is still being built): nothing to compare with.')
              : h(
                  'p',
                  { class: 'hint hv-compared' },
                  'Against its version in file ',
                  o.comparedWith.fileNumber,
                  ` @ ${groupDigits(o.comparedWith.offset)}`,
                  o.comparedWith.timestamp === null ? null : [', stored by ', h('a', { href: this.app.href({ view: 'history', instance: undefined, timestamp: o.comparedWith.timestamp }) }, this.commitName(o.comparedWith.timestamp))],
                  ' · ',
                  h('a', { href: href(o.objectId), title: 'the object panel lists every version still on disk' }, 'all versions'),
                );
        objects.append(h('li', { class: `hv-object ${o.change}`, 'data-oid': o.objectId }, objectHead(o.change, o.typeName, o.objectId, href), compared, o.members === null ? null : memberChangeList(o.members, href)));
      }
      void addSummaries(objects, (ids) => objectSummaries(this.app, ids));
      const shown = page.offset + page.objects.length;
      clear(more, shown < c.objects ? h('button', { type: 'button', class: 'button', onclick: () => void this.moreOfCommit(timestamp, shown, epoch, appendPage, more) }, `Show ${groupDigits(Math.min(OBJECTS_PAGE, c.objects - shown))} more of ${groupDigits(c.objects - shown)}`) : null);
    };
    appendPage(detail);
    const compareLink = h('a', { class: 'button small', href: this.app.href({ view: 'history', instance: undefined, timestamp: undefined, compare: { from: String(Math.max(0, c.number - 1)), to: String(c.number) } }) }, 'As a comparison');
    clear(
      this.detail,
      h('h3', null, `Commit ${c.number}`, h('span', { class: 'hint' }, `  ${shortTime(c.time)} UTC`), c.complete ? null : h('span', { class: 'badge hv-incomplete' }, 'partly removed by housekeeping')),
      h(
        'div',
        { class: 'cards hv-cards' },
        card('Bytes', humanBytes(c.bytes), `${groupDigits(c.bytes)} bytes written`),
        card('Objects', groupDigits(c.objects), 'objects stored by this commit'),
        card('New', groupDigits(c.newObjects), 'objects no earlier commit had stored'),
        card('Updated', groupDigits(c.updatedObjects), 'objects stored again'),
      ),
      h('p', { class: 'hint hv-channels' }, c.channels.map((p) => `channel ${p.channel}: file ${p.fileNumber} from ${groupDigits(p.from)}, ${humanBytes(p.bytes)}`).join(' · '), ' ', c.number > 1 ? compareLink : null, h('span', { class: 'hv-timestamp' }, ` timestamp ${c.timestamp}`)),
      h('h4', null, 'Types'),
      h('table', { class: 'hv-type-table' }, h('tbody', null, c.types.map((t) => h('tr', null, h('td', { class: 'hv-type-name', title: t.typeName }, t.typeName), h('td', { class: 'hv-num' }, groupDigits(t.objects)))))),
      h('h4', null, 'Objects', h('span', { class: 'hint' }, ' in the order the commit wrote them')),
      objects,
      more,
    );
  }

  /** "commit 3" when the list loaded holds it, else "an earlier commit". */
  private commitName(timestamp: string): string {
    const commit = this.list?.commits.find((c) => c.timestamp === timestamp);
    return commit === undefined ? 'an earlier commit' : `commit ${commit.number}`;
  }

  private async moreOfCommit(timestamp: string, offset: number, epoch: number, append: (page: CommitDetail) => void, more: HTMLElement): Promise<void> {
    clear(more, h('span', { class: 'hint' }, 'Loading…'));
    try {
      const page = await this.history.commit(timestamp, offset, OBJECTS_PAGE);
      if (epoch === this.epoch) append(page);
    } catch (error) {
      if (epoch === this.epoch) clear(more, h('div', { class: 'problem', role: 'alert' }, errorMessage(error)));
    }
  }

  private sideLabel(side: DiffAnswer['a']): string {
    return side.commit === null ? `${side.storage} as it is` : `${side.storage} as of commit ${side.commit.number} (${shortTime(side.commit.time)})`;
  }

  private async showCompare(compare: Compare, epoch: number): Promise<void> {
    this.loading();
    const sides: DiffSides = compare;
    let answer: DiffAnswer;
    try {
      answer = await this.history.diff(sides, 0, OBJECTS_PAGE);
    } catch (error) {
      if (epoch === this.epoch) clear(this.detail, h('div', { class: 'problem', role: 'alert' }, h('strong', null, 'Cannot compare. '), errorMessage(error)));
      return;
    }
    if (epoch !== this.epoch) return;
    // Two storages: an added or changed object is opened in b, a removed one in a.
    const instanceOf = (name: string): string | undefined => ('a' in compare ? this.app.instanceOfStorage(name) : undefined);
    const hrefA = this.objectHref(instanceOf(answer.a.storage));
    const hrefB = this.objectHref(instanceOf(answer.b.storage));
    const s = answer.summary;
    const objects = h('ol', { class: 'hv-objects' });
    const more = h('div', { class: 'hv-more' });
    const appendPage = (page: DiffAnswer): void => {
      for (const o of page.objects) {
        const href = o.change === 'removed' ? hrefA : hrefB;
        const retyped = o.typeNameBefore !== undefined && o.typeNameBefore !== o.typeName ? h('p', { class: 'hint' }, `was ${o.typeNameBefore}`) : null;
        const body = o.problem !== undefined ? h('p', { class: 'v-error' }, o.problem) : o.members === undefined ? null : memberChangeList(o.members, href);
        objects.append(h('li', { class: `hv-object ${o.change}`, 'data-oid': o.objectId }, objectHead(o.change, o.typeName, o.objectId, href), retyped, body));
      }
      // What a reference holds now, where the objects are this storage's.
      if (!('a' in compare)) void addSummaries(objects, (ids) => objectSummaries(this.app, ids));
      const shown = page.offset + page.objects.length;
      clear(more, shown < page.total ? h('button', { type: 'button', class: 'button', onclick: () => void this.moreOfDiff(sides, shown, epoch, appendPage, more) }, `Show ${groupDigits(Math.min(OBJECTS_PAGE, page.total - shown))} more of ${groupDigits(page.total - shown)}`) : null);
    };
    appendPage(answer);
    const differing = s.types.filter((t) => t.added + t.removed + t.changed > 0);
    clear(
      this.detail,
      h('h3', null, answer.equal ? 'No differences' : 'What changed'),
      h('p', { class: 'hv-sides' }, h('span', null, this.sideLabel(answer.a)), h('span', { 'aria-hidden': 'true' }, ' → '), h('span', null, this.sideLabel(answer.b))),
      h(
        'div',
        { class: 'cards hv-cards' },
        card('Added', groupDigits(s.added), 'objects only the later side has'),
        card('Removed', groupDigits(s.removed), 'objects only the earlier side has'),
        card('Changed', groupDigits(s.changed), 'objects whose records differ'),
        card('Unchanged', groupDigits(s.unchanged), 'objects stored alike on both sides'),
      ),
      differing.length === 0
        ? null
        : [
            h('h4', null, 'Types'),
            h(
              'table',
              { class: 'hv-type-table hv-diff-types' },
              h('thead', null, h('tr', null, h('th', null, 'type'), h('th', { class: 'hv-num' }, 'added'), h('th', { class: 'hv-num' }, 'removed'), h('th', { class: 'hv-num' }, 'changed'))),
              h('tbody', null, differing.map((t) => h('tr', null, h('td', { class: 'hv-type-name', title: t.typeName }, t.typeName), h('td', { class: 'hv-num' }, groupDigits(t.added)), h('td', { class: 'hv-num' }, groupDigits(t.removed)), h('td', { class: 'hv-num' }, groupDigits(t.changed))))),
            ),
            h('p', { class: 'hint' }, `${groupDigits(s.types.length - differing.length)} more types without differences.`),
          ],
      answer.typeChanges.length === 0
        ? null
        : [
            h('h4', null, 'Type changes'),
            h(
              'ul',
              { class: 'hv-type-changes' },
              answer.typeChanges.map((t) =>
                h(
                  'li',
                  null,
                  h('span', { class: 'hv-type-name' }, t.typeName),
                  h('span', { class: 'hint' }, ` (type id ${t.typeIdBefore} → ${t.typeIdAfter})`),
                  h('ul', null, [...t.membersAdded.map((m) => h('li', { class: 'hc-added' }, `+ ${m.type} ${m.member}`)), ...t.membersRemoved.map((m) => h('li', { class: 'hc-removed' }, `− ${m.type} ${m.member}`)), ...t.membersRetyped.map((m) => h('li', { class: 'hc-moved' }, `~ ${m.member}: ${m.before} → ${m.after}`))]),
                ),
              ),
            ),
          ],
      answer.total === 0 ? null : h('h4', null, 'Objects', h('span', { class: 'hint' }, ` ${groupDigits(answer.total)} differ`)),
      objects,
      more,
    );
  }

  private async moreOfDiff(sides: DiffSides, offset: number, epoch: number, append: (page: DiffAnswer) => void, more: HTMLElement): Promise<void> {
    clear(more, h('span', { class: 'hint' }, 'Loading…'));
    try {
      const page = await this.history.diff(sides, offset, OBJECTS_PAGE);
      if (epoch === this.epoch) append(page);
    } catch (error) {
      if (epoch === this.epoch) clear(more, h('div', { class: 'problem', role: 'alert' }, errorMessage(error)));
    }
  }
}

function card(label: string, value: string, title: string): HTMLElement {
  return h('div', { class: 'card', title }, h('div', { class: 'card-label' }, label), h('div', { class: 'card-value' }, value));
}
