import { errorMessage } from '../model/api.js';
import type { SearchHit, SearchResult } from '../model/api-v1.js';
import { displayTypeName, shortTypeName } from '../model/dictionary.js';
import type { ViewHost } from '../shell/view-host.js';
import { clear, h } from '../ui/dom.js';
import { groupDigits, humanBytes, quote } from '../ui/format.js';

/**
 * Objects holding a text or value, optionally of one type (a full or simple name): a match in a
 * String, Integer or Date is shown as the object holding it and the member it is held in
 * (`Person 1000… .name = "Greta Schmidt"`), with a summary of that object; paged.
 */

const PAGE = 100;

export class SearchView {
  readonly element: HTMLElement;
  readonly input: HTMLInputElement;
  private readonly typeInput: HTMLInputElement;
  private readonly results: HTMLElement;
  private searched = '';

  constructor(private readonly app: ViewHost) {
    this.input = h('input', { type: 'search', class: 'filter-input', placeholder: 'Text or value…', 'aria-label': 'Search text', spellcheck: 'false' });
    this.typeInput = h('input', { type: 'search', class: 'filter-input', placeholder: 'Type (optional)', 'aria-label': 'Type name or id', spellcheck: 'false' });
    const form = h('form', { class: 'search-form', role: 'search' }, this.input, this.typeInput, h('button', { type: 'submit', class: 'button primary' }, 'Search'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.app.navigate({ view: 'search', instance: undefined, query: this.input.value, type: this.typeInput.value.trim(), offset: 0 });
    });
    this.results = h('div', { class: 'search-results' });
    this.element = h('section', { class: 'view page-view search-view', 'aria-label': 'Search' }, h('div', { class: 'stats-toolbar' }, h('h2', null, 'Search'), form), this.results);
  }

  async show(query: string, type: string, offset: number): Promise<void> {
    this.input.value = query;
    this.typeInput.value = type;
    const key = `${query}\u0000${type}\u0000${offset}`;
    if (query === '') {
      clear(
        this.results,
        h('p', { class: 'hint' }, 'Finds the objects holding a text (strings, BigDecimals, dates, …) or value containing the text, ignoring case; a type (full or simple name, e.g. Person) narrows it to objects of that type.'),
      );
      return;
    }
    if (key === this.searched) return;
    this.searched = key;
    clear(this.results, h('p', { class: 'hint' }, 'Searching…'));
    try {
      const params = new URLSearchParams({ q: query, offset: String(offset), limit: String(PAGE), maxMs: '3000' });
      if (type !== '') params.set('type', type);
      // The owners of a matching String are known from the graph index: while it is built, the search waits for it.
      const r = await this.app.v1.get<SearchResult>(`/search?${params.toString()}`, 'the search', (p) => {
        if (this.searched === key) clear(this.results, h('p', { class: 'hint building' }, `The server is building its graph index (${p.phase}, ${p.percent} %). The search runs when it is ready.`));
      });
      if (this.searched !== key) return;
      const shown = r.results.length === 0 ? 'nothing' : `${groupDigits(offset + 1)}–${groupDigits(offset + r.results.length)}`;
      const scope = r.typeName === undefined ? '' : ` of ${displayTypeName(r.typeName)}`;
      const note = r.complete
        ? `${offset === 0 ? groupDigits(r.results.length) : shown} found${scope} in the whole storage (${humanBytes(r.totalBytes)}).`
        : r.stoppedBy === 'limit'
          ? `${shown} found${scope}; there are more (searched ${humanBytes(r.scannedBytes)} of ${humanBytes(r.totalBytes)} so far).`
          : `Stopped after 3 seconds: ${shown} found${scope} in ${humanBytes(r.scannedBytes)} of ${humanBytes(r.totalBytes)}; narrow it down with a type.`;
      const page = (to: number, label: string): HTMLElement =>
        h('a', { class: 'button small', href: this.app.href({ view: 'search', instance: undefined, query, type, offset: to }) }, label);
      clear(
        this.results,
        h('p', { class: 'hint' }, note),
        h('div', { class: 'table-scroll' }, h(
          'table',
          { class: 'results' },
          h('thead', null, h('tr', null, h('th', null, 'Object'), h('th', null, 'Member'), h('th', null, 'Value'), h('th', { class: 'wide-only' }, 'Summary'))),
          h('tbody', null, r.results.map((hit) => this.row(hit))),
        )),
        h('div', { class: 'pager' }, offset > 0 ? page(Math.max(0, offset - PAGE), '‹ Previous') : null, r.stoppedBy === 'limit' ? page(offset + PAGE, 'Next ›') : null),
      );
    } catch (error) {
      this.searched = '';
      clear(this.results, h('div', { class: 'problem', role: 'alert' }, errorMessage(error)));
    }
  }

  private row(hit: SearchHit): HTMLElement {
    const link = h(
      'a',
      { class: 'ref-link', href: this.app.href({ view: 'data', instance: undefined, oid: hit.objectId, path: [] }), title: `${displayTypeName(hit.typeName)} ${hit.objectId}` },
      `${shortTypeName(hit.typeName)} ${hit.objectId}`,
    );
    const member = hit.member === '' ? '' : `.${hit.member}`;
    return h(
      'tr',
      { class: 'search-hit' },
      h('td', null, link),
      h('td', null, h('code', null, member)),
      h('td', { class: typeof hit.value === 'boolean' ? 'v-keyword' : valueText(hit).startsWith('"') ? 'v-string' : 'v-number' }, valueText(hit)),
      h('td', { class: 'summary wide-only' }, hit.summary ?? ''),
    );
  }
}

/** Numbers and dates bare, texts quoted (the match shortened around it). */
function valueText(hit: SearchHit): string {
  const value = hit.value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const type = hit.valueTypeName;
  if (type !== undefined && /Date|Timestamp|^java\.time\./.test(type)) return value;
  const textual = type === undefined ? !/^-?[0-9]+$/.test(value) : /String|Char/.test(type);
  return textual ? quote(hit.text, 120) : hit.text.length > 120 ? `${hit.text.slice(0, 120)}…` : hit.text;
}
