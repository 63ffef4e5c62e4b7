import { h } from '../ui/dom.js';
import { groupDigits, humanBytes } from '../ui/format.js';

/** Figures and bars shared by the Types and Analysis views. */

export function card(label: string, value: string, title: string, tone = ''): HTMLElement {
  return h('div', { class: `card${tone === '' ? '' : ` ${tone}`}`, title }, h('div', { class: 'card-label' }, label), h('div', { class: 'card-value' }, value));
}

/** One horizontal bar made of parts (`kind` picks the colour), scaled against `max`. */
export function stackedBar(parts: readonly { readonly value: number; readonly kind: string }[], max: number, title: string): HTMLElement {
  const total = parts.reduce((n, p) => n + p.value, 0);
  const outer = h('div', { class: 'sbar', title });
  outer.style.width = `${Math.max(0.5, (100 * total) / Math.max(1, max))}%`;
  for (const part of parts) {
    if (part.value <= 0) continue;
    const piece = h('div', { class: `sbar-part ${part.kind}` });
    piece.style.width = `${(100 * part.value) / Math.max(1, total)}%`;
    outer.append(piece);
  }
  return h('div', { class: 'bar-track' }, outer);
}

export function legendOf(items: readonly (readonly [kind: string, label: string])[]): HTMLElement {
  return h('div', { class: 'legend' }, items.map(([kind, label]) => h('span', null, h('span', { class: `swatch ${kind}` }), label)));
}

export function bytesWithCount(bytes: number, count: number): string {
  return `${humanBytes(bytes)} · ${groupDigits(count)}`;
}
