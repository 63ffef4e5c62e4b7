import { errorMessage } from '../api.js';
import type { SearchResult } from '../api-v1.js';
import type { App } from '../app.js';
import { clear, h } from '../dom.js';
import { groupDigits, humanBytes, quote } from '../format.js';

/** Objects whose text or primitive value contains a query, optionally of one type. */
export class SearchView {
  readonly element: HTMLElement;
  readonly input: HTMLInputElement;
  private readonly typeInput: HTMLInputElement;
  private readonly results: HTMLElement;
  private searched = '';

  constructor(private readonly app: App) {
    this.input = h('input', { type: 'search', class: 'filter-input', placeholder: 'Text or value…', 'aria-label': 'Search text', spellcheck: 'false' });
    this.typeInput = h('input', { type: 'search', class: 'filter-input', placeholder: 'Type (optional)', 'aria-label': 'Type name or id', spellcheck: 'false' });
    const form = h('form', { class: 'search-form', role: 'search' }, this.input, this.typeInput, h('button', { type: 'submit', class: 'button primary' }, 'Search'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.app.navigate({ view: 'search', instance: undefined, query: this.input.value, type: this.typeInput.value.trim() });
    });
    this.results = h('div', { class: 'search-results' });
    this.element = h('section', { class: 'view search-view', 'aria-label': 'Search' }, h('div', { class: 'stats-toolbar' }, h('h2', null, 'Search'), form), this.results);
  }

  async show(query: string, type: string): Promise<void> {
    this.input.value = query;
    this.typeInput.value = type;
    const key = `${query}\u0000${type}`;
    if (query === '') {
      clear(this.results, h('p', { class: 'hint' }, 'Finds objects whose texts (strings, BigDecimals, …) or primitive values contain the text, ignoring case; a type name narrows it down.'));
      return;
    }
    if (key === this.searched) return;
    this.searched = key;
    clear(this.results, h('p', { class: 'hint' }, 'Searching…'));
    try {
      const params = new URLSearchParams({ q: query, limit: '200', maxMs: '3000' });
      if (type !== '') params.set('type', type);
      const r = await this.app.v1.get<SearchResult>(`/search?${params.toString()}`, 'the search');
      if (this.searched !== key) return;
      const note = r.complete
        ? `${groupDigits(r.results.length)} found in the whole storage (${humanBytes(r.totalBytes)}).`
        : r.stoppedBy === 'limit'
          ? `The first ${groupDigits(r.results.length)} found; there may be more (searched ${humanBytes(r.scannedBytes)} of ${humanBytes(r.totalBytes)}).`
          : `Stopped after 3 seconds: ${groupDigits(r.results.length)} found in ${humanBytes(r.scannedBytes)} of ${humanBytes(r.totalBytes)}; narrow it down with a type.`;
      clear(
        this.results,
        h('p', { class: 'hint' }, note),
        h(
          'table',
          { class: 'results' },
          h('thead', null, h('tr', null, h('th', null, 'Object'), h('th', null, 'Type'), h('th', null, 'Member'), h('th', null, 'Value'))),
          h(
            'tbody',
            null,
            r.results.map((hit) =>
              h(
                'tr',
                null,
                h('td', null, h('a', { class: 'ref-link', href: this.app.href({ view: 'data', instance: undefined, oid: hit.objectId, path: [] }) }, hit.objectId)),
                h('td', null, hit.typeName),
                h('td', null, h('code', null, hit.member)),
                h('td', { class: 'v-string' }, quote(hit.text, 120)),
              ),
            ),
          ),
        ),
      );
    } catch (error) {
      this.searched = '';
      clear(this.results, h('div', { class: 'problem', role: 'alert' }, errorMessage(error)));
    }
  }
}
