import { errorMessage } from '../model/api.js';
import type { ViewHost } from '../shell/view-host.js';
import { displayTypeName, shortTypeName } from '../model/dictionary.js';
import { clear, h } from '../ui/dom.js';
import { groupDigits, humanBytes, percent } from '../ui/format.js';
import { stackedBar } from './charts.js';
import { retainedOf, type RetainedAnswer } from './retained-api.js';

/**
 * The object panel's retained-size sections: "What keeps this alive" (its dominator chain, from
 * the roots object down to it: every object a path from the roots must pass) and "What deleting
 * this would free" (its retained set by type), each linking to the Retained view.
 */

const CHAIN = 50;
const TYPES = 10;

export class RetainedInsight {
  readonly element: HTMLElement;
  private readonly alive: HTMLElement;
  private readonly frees: HTMLElement;
  private oid: string | undefined;

  constructor(private readonly app: ViewHost) {
    this.alive = h('div', { class: 'insight-body' });
    this.frees = h('div', { class: 'insight-body' });
    this.element = h(
      'div',
      { class: 'retained-insight' },
      h('section', { class: 'insight keeps-alive-section' }, h('h3', null, 'What keeps this alive'), this.alive),
      h('section', { class: 'insight frees-section' }, h('h3', null, 'What deleting this would free'), this.frees),
    );
  }

  load(oid: string): void {
    this.oid = oid;
    for (const body of [this.alive, this.frees]) clear(body, h('p', { class: 'hint' }, 'Loading…'));
    retainedOf(this.app.v1, oid, CHAIN, TYPES, (p) => {
      if (this.oid === oid) for (const body of [this.alive, this.frees]) clear(body, h('p', { class: 'hint building' }, `The server is computing the dominator tree (${p.percent} %)…`));
    }).then(
      (answer) => this.oid === oid && this.render(answer),
      (error: unknown) => {
        if (this.oid !== oid) return;
        clear(this.alive, h('p', { class: 'v-error' }, errorMessage(error)));
        clear(this.frees);
      },
    );
  }

  private retainedLink(oid: string): HTMLElement {
    return h('a', { class: 'rt-open', href: this.app.href({ view: 'retained', instance: undefined, oid }) }, 'Show in the Retained view');
  }

  private render(a: RetainedAnswer): void {
    if (!a.reachable || a.retained === null) {
      clear(this.alive, h('p', { class: 'unreachable' }, 'Nothing: no chain of references from the roots leads here (garbage already).'));
      clear(this.frees, h('p', { class: 'hint' }, 'Nothing that is not garbage already: an unreachable object keeps nothing alive.'));
      return;
    }
    const link = (oid: string, label: string, title: string): HTMLElement => h('a', { class: 'ref-link', href: this.app.href({ view: 'data', instance: undefined, oid, path: [] }), title }, label);
    // The chain comes from the immediate dominator up; shown from the roots down, as the path is.
    const steps = [...a.chain].reverse().map((d, i) =>
      h(
        'li',
        { class: 'crumb-step', 'data-oid': d.objectId },
        link(d.objectId, i === 0 && a.chain.length === a.chainLength ? 'Roots' : shortTypeName(d.typeName), `object ${d.objectId}: ${displayTypeName(d.typeName)}${d.summary === undefined ? '' : ` ${d.summary}`}, retains ${humanBytes(d.retainedBytes)}`),
        h('span', { class: 'rt-step-bytes' }, ` ${humanBytes(d.retainedBytes)}`),
      ),
    );
    const cut = a.chainLength > a.chain.length ? h('li', { class: 'crumb-step hint' }, `… ${groupDigits(a.chainLength - a.chain.length)} more above`) : null;
    const self = h('li', { class: 'crumb-step current' }, h('strong', null, shortTypeName(a.typeName)), h('span', { class: 'rt-step-bytes' }, ` ${humanBytes(a.retained.bytes)}`));
    clear(
      this.alive,
      a.chainLength === 0
        ? h('p', { class: 'hint' }, 'This is the roots object: it keeps every reachable object alive.')
        : h('p', { class: 'hint' }, `Every path from the roots passes ${a.chainLength === 1 ? 'this object' : `these ${groupDigits(a.chainLength)} objects`} (each with what it keeps alive): were any of them gone, this one would be garbage too.`),
      a.chainLength === 0 ? null : h('ol', { class: 'crumbs-line dominator-chain', 'aria-label': 'Dominators from the roots down to this object' }, cut, steps, self),
      this.retainedLink(a.objectId),
    );
    const max = Math.max(1, ...a.byType.map((t) => t.bytes));
    const listed = a.byType.reduce((n, t) => n + t.objects, 0);
    clear(
      this.frees,
      h('p', { class: 'rt-frees' }, h('strong', null, `${groupDigits(a.retained.objects)} ${a.retained.objects === 1 ? 'object' : 'objects'}, ${humanBytes(a.retained.bytes)}`), ` (${percent(a.retained.share, 1)} of the reachable bytes; itself ${humanBytes(a.ownBytes)})`),
      h(
        'div',
        { class: 'chart rt-by-type', role: 'list', 'aria-label': 'Retained set by type' },
        a.byType.map((t) =>
          h(
            'div',
            { class: 'bar-row', role: 'listitem', title: `${displayTypeName(t.typeName)}: ${groupDigits(t.objects)} objects, ${groupDigits(t.bytes)} bytes` },
            h('div', { class: 'bar-label' }, shortTypeName(t.typeName)),
            stackedBar([{ value: t.bytes, kind: 'live' }], max, `${groupDigits(t.bytes)} bytes`),
            h('div', { class: 'bar-figures' }, humanBytes(t.bytes), h('span', { class: 'ratio' }, `${groupDigits(t.objects)} obj`)),
          ),
        ),
      ),
      listed < a.retained.objects ? h('p', { class: 'hint' }, `… and ${groupDigits(a.retained.objects - listed)} objects of other types.`) : null,
    );
  }
}
