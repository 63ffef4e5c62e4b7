import { errorMessage } from '../model/api.js';
import type { ViewHost } from '../shell/view-host.js';
import { clear, h } from '../ui/dom.js';
import { groupDigits, humanBytes } from '../ui/format.js';
import { card } from './charts.js';
import { dominatorPage, retainedOf, waitingText, type RetainerEntry } from './retained-api.js';
import { sunburst, sunburstArcs, sunburstLegend } from './retained-sunburst.js';
import { CHILD_PAGE, RetainedTable } from './retained-table.js';
import './retained.css';

/**
 * The Retained view: what keeps the bytes alive. The dominator tree from the roots object as an
 * expandable table (retained-table.ts) beside a sunburst of its top levels (retained-sunburst.ts);
 * `#/<instance>/retained/<oid>` opens the tree down to that object and marks it.
 */

/** Dominators a revealed object may have below the roots: deeper ones are not opened row by row. */
const MAX_REVEAL = 100;

export class RetainedView {
  readonly element: HTMLElement;
  private readonly cards: HTMLElement;
  private readonly notice: HTMLElement;
  private readonly chart: HTMLElement;
  private readonly table: RetainedTable;
  private loaded: Promise<boolean> | undefined;
  private generation = 0;

  constructor(private readonly app: ViewHost) {
    this.table = new RetainedTable(app.v1, (route) => app.href(route));
    this.cards = h('div', { class: 'cards rt-cards' });
    this.notice = h('p', { class: 'hint rt-notice', role: 'status' });
    this.chart = h('aside', { class: 'rt-chart', 'aria-label': 'Top levels of the dominator tree' });
    const refresh = h('button', { type: 'button', class: 'button', onclick: () => void this.refresh() }, '↻ Refresh');
    this.element = h(
      'section',
      { class: 'view page-view retained-view', 'aria-label': 'Retained' },
      h('div', { class: 'stats-toolbar' }, h('h2', null, 'What keeps the bytes alive'), refresh),
      h('p', { class: 'hint' }, 'Each object with what only it keeps alive: the bytes that would become garbage were it no longer referenced. Open a row to see, largest first, the objects it alone holds.'),
      this.cards,
      this.notice,
      h('div', { class: 'rt-layout' }, this.table.element, this.chart),
    );
  }

  /** Shows the tree from the roots object; with `oid`, opened down to that object. */
  async show(oid: string | undefined): Promise<void> {
    this.loaded ??= this.load();
    const generation = ++this.generation;
    if (!(await this.loaded) || generation !== this.generation) return;
    this.notice.textContent = '';
    if (oid !== undefined) await this.reveal(oid, generation);
  }

  /** Loads again (after the storage changed), opened down to the object marked before if it still lives. */
  async refresh(): Promise<void> {
    const marked = this.table.focused;
    this.loaded = this.load();
    const generation = ++this.generation;
    if ((await this.loaded) && marked !== undefined && generation === this.generation) await this.reveal(marked, generation);
  }

  private async load(): Promise<boolean> {
    clear(this.cards);
    clear(this.chart);
    this.notice.textContent = 'Loading…';
    try {
      const first = await dominatorPage(this.app.v1, undefined, 0, CHILD_PAGE, (p) => (this.notice.textContent = waitingText(p)));
      this.notice.textContent = '';
      this.table.start(first.parent, first.reachableBytes, first);
      clear(
        this.cards,
        card('Reachable', humanBytes(first.reachableBytes), `${groupDigits(first.reachableBytes)} bytes in ${groupDigits(first.reachableObjects)} objects reachable from the roots`),
        card('Objects', groupDigits(first.reachableObjects), 'objects reachable from the roots object'),
        biggest(first.children),
      );
      void this.drawChart(first.parent, first.reachableBytes, first.children);
      return true;
    } catch (error) {
      this.notice.textContent = '';
      this.table.fail(`Cannot load the dominator tree: ${errorMessage(error)}`);
      return false;
    }
  }

  private async drawChart(roots: RetainerEntry, reachableBytes: number, first: readonly RetainerEntry[]): Promise<void> {
    clear(this.chart, h('p', { class: 'hint' }, 'Drawing…'));
    const linkOf = (oid: string): string => this.app.href({ view: 'retained', instance: undefined, oid });
    try {
      const arcs = await sunburstArcs(this.app.v1, reachableBytes, first);
      clear(this.chart, h('h3', null, 'Top levels'), sunburst(arcs, roots, reachableBytes, linkOf), sunburstLegend(arcs, reachableBytes, linkOf), h('p', { class: 'hint' }, 'The roots object in the middle, each ring one level down; an arc is as wide as the bytes it keeps alive. Click one to find it in the table.'));
    } catch (error) {
      clear(this.chart, h('p', { class: 'v-error' }, errorMessage(error)));
    }
  }

  private async reveal(oid: string, generation: number): Promise<void> {
    try {
      const answer = await retainedOf(this.app.v1, oid, MAX_REVEAL, 0);
      if (generation !== this.generation) return;
      if (!answer.reachable || answer.retained === null) {
        this.notice.textContent = `Object ${oid} is not reachable from the roots: it is garbage already and keeps nothing alive.`;
        return;
      }
      if (answer.chainLength > answer.chain.length) {
        this.notice.textContent = `Object ${oid} lies ${groupDigits(answer.chainLength)} dominators below the roots, too deep to open row by row here; its object panel lists what keeps it alive.`;
        return;
      }
      const target: RetainerEntry = { objectId: answer.objectId, typeName: answer.typeName, ownBytes: answer.ownBytes, retainedObjects: answer.retained.objects, retainedBytes: answer.retained.bytes, share: answer.retained.share };
      await this.table.reveal([...[...answer.chain].reverse(), target]);
    } catch (error) {
      if (generation === this.generation) this.notice.textContent = errorMessage(error);
    }
  }
}

/** The largest object below the roots object, as a card. */
function biggest(children: readonly RetainerEntry[]): HTMLElement | null {
  const top = children[0];
  if (top === undefined) return null;
  return card('Largest below the roots', humanBytes(top.retainedBytes), `object ${top.objectId} (${top.typeName}) keeps ${groupDigits(top.retainedObjects)} objects alive`);
}
