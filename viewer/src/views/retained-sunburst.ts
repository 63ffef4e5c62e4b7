import type { ApiV1 } from '../model/api-v1.js';
import { displayTypeName, shortTypeName } from '../model/dictionary.js';
import { h } from '../ui/dom.js';
import { humanBytes, percent } from '../ui/format.js';
import { escapeInvisible } from '../ui/invisible.js';
import { dominatorPage, type RetainerEntry } from './retained-api.js';

/**
 * A sunburst of the dominator tree's top levels: the roots object in the middle, each ring one
 * level further down, an object's angle its share of the reachable bytes (so a child lies within
 * its parent's arc). Plain SVG; an arc links to the object's row in the table. The rings are read
 * with a bounded number of requests (objects under 1 % of the bytes are not opened).
 */

const RINGS = 4;
const PER_NODE = 12;
const MAX_REQUESTS = 24;
/** An object smaller than this share is not opened for the next ring. */
const OPEN_SHARE = 0.01;
const SIZE = 240;
const CENTER = 34;
const RING = (SIZE / 2 - CENTER - 4) / RINGS;
const SVG = 'http://www.w3.org/2000/svg';

export interface Arc {
  readonly entry: RetainerEntry;
  readonly ring: number;
  readonly start: number;
  readonly end: number;
  /** Its colour: an object's largest child keeps its parent's, the others get one of their own. */
  readonly family: number;
}

/** Reads the top rings below the roots object (whose first page is given). */
export async function sunburstArcs(v1: ApiV1, reachableBytes: number, first: readonly RetainerEntry[]): Promise<Arc[]> {
  const arcs: Arc[] = [];
  const total = Math.max(1, reachableBytes);
  let level: { entry: RetainerEntry; start: number; family: number }[] = [];
  let angle = 0;
  let families = 0;
  first.slice(0, PER_NODE).forEach((entry) => {
    const end = angle + (entry.retainedBytes / total) * 2 * Math.PI;
    const family = families++;
    arcs.push({ entry, ring: 1, start: angle, end, family });
    level.push({ entry, start: angle, family });
    angle = end;
  });
  let requests = 0;
  for (let ring = 2; ring <= RINGS; ring++) {
    const next: typeof level = [];
    for (const parent of level) {
      if (parent.entry.share < OPEN_SHARE || parent.entry.retainedObjects <= 1 || requests >= MAX_REQUESTS) continue;
      requests++;
      const page = await dominatorPage(v1, parent.entry.objectId, 0, PER_NODE);
      let a = parent.start;
      for (const [i, entry] of page.children.entries()) {
        const end = a + (entry.retainedBytes / total) * 2 * Math.PI;
        const family = i === 0 ? parent.family : families++;
        arcs.push({ entry, ring, start: a, end, family });
        next.push({ entry, start: a, family });
        a = end;
      }
    }
    level = next;
  }
  return arcs;
}

const HUES = [212, 28, 140, 280, 350, 190, 50, 100, 320, 250, 10, 165];

export function sunburst(arcs: readonly Arc[], roots: RetainerEntry, reachableBytes: number, linkOf: (oid: string) => string): SVGSVGElement {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `${-SIZE / 2} ${-SIZE / 2} ${SIZE} ${SIZE}`);
  svg.setAttribute('class', 'rt-sunburst');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', 'Sunburst of the dominator tree: the roots object in the middle, each ring one level down, angles by retained bytes');
  const center = el('a', { href: linkOf(roots.objectId), class: 'rt-arc' });
  center.append(el('circle', { r: String(CENTER - 1), class: 'rt-center' }), titleOf(roots, reachableBytes));
  const caption = el('text', { class: 'rt-center-text', 'text-anchor': 'middle', y: '4' });
  caption.textContent = humanBytes(reachableBytes);
  center.append(caption);
  svg.append(center);
  for (const arc of arcs) {
    // Slivers under a third of a degree are left out: they could not be seen or hovered.
    if (arc.end - arc.start < Math.PI / 540) continue;
    const inner = CENTER + (arc.ring - 1) * RING;
    const path = el('path', { d: arcPath(inner, inner + RING - 1, arc.start, arc.end) });
    const hue = HUES[arc.family % HUES.length]!;
    path.setAttribute('fill', `hsl(${hue} 65% ${42 + arc.ring * 9}%)`);
    const link = el('a', { href: linkOf(arc.entry.objectId), class: 'rt-arc', 'data-oid': arc.entry.objectId });
    link.append(path, titleOf(arc.entry, reachableBytes));
    svg.append(link);
  }
  return svg;
}

/** The biggest arcs named beside the chart (an SVG has no room for labels at this size). */
export function sunburstLegend(arcs: readonly Arc[], reachableBytes: number, linkOf: (oid: string) => string): HTMLElement {
  const shown = arcs.filter((a) => a.entry.share >= 0.02).slice(0, 12);
  return h(
    'ol',
    { class: 'rt-legend' },
    shown.map((a) => {
      const swatch = h('span', { class: 'swatch' });
      swatch.style.background = `hsl(${HUES[a.family % HUES.length]!} 65% ${42 + a.ring * 9}%)`;
      return h(
        'li',
        null,
        h('a', { href: linkOf(a.entry.objectId), title: `${displayTypeName(a.entry.typeName)} ${a.entry.objectId}, ring ${a.ring}` }, swatch, h('span', { class: 'rt-legend-name' }, shortTypeName(a.entry.typeName), a.entry.summary === undefined || a.entry.summary === '{…}' ? null : h('span', { class: 'hint' }, ` ${a.entry.summary}`)), h('span', { class: 'rt-legend-share' }, percent(a.entry.retainedBytes, reachableBytes))),
      );
    }),
  );
}

function titleOf(entry: RetainerEntry, reachableBytes: number): SVGTitleElement {
  const title = el('title', {}) as SVGTitleElement;
  // A stored summary may hold invisible characters: shown as escapes, as everywhere else (dom.ts).
  title.textContent = escapeInvisible(`${displayTypeName(entry.typeName)} ${entry.objectId}${entry.summary === undefined ? '' : ` ${entry.summary}`}: retains ${humanBytes(entry.retainedBytes)} (${percent(entry.retainedBytes, reachableBytes)})`);
  return title;
}

function el(tag: string, attrs: Record<string, string>): SVGElement {
  const e = document.createElementNS(SVG, tag) as SVGElement;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

/** An annulus sector from angle a0 to a1 (radians, clockwise from 12 o'clock). */
function arcPath(r0: number, r1: number, a0: number, a1: number): string {
  // A full circle cannot be one SVG arc: stop just short of it.
  const end = Math.min(a1, a0 + 2 * Math.PI - 1e-4);
  const p = (r: number, a: number): string => `${(r * Math.sin(a)).toFixed(2)} ${(-r * Math.cos(a)).toFixed(2)}`;
  const large = end - a0 > Math.PI ? 1 : 0;
  return `M ${p(r1, a0)} A ${r1} ${r1} 0 ${large} 1 ${p(r1, end)} L ${p(r0, end)} A ${r0} ${r0} 0 ${large} 0 ${p(r0, a0)} Z`;
}
