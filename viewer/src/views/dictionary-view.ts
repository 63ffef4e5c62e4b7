import type { ViewHost } from '../shell/view-host.js';
import { compareIds, packageOf, readableTypeName, shortTypeName, type Member, type TypeDictionary, type TypeEntry } from '../model/dictionary.js';
import { clear, h } from '../ui/dom.js';
import { groupDigits } from '../ui/format.js';

/** Every type of the dictionary: id, name, members, all versions; searchable. */

const MAX_LISTED = 400;

interface Match {
  readonly entry: TypeEntry;
  readonly rank: number;
  readonly hint: string | undefined;
}

export class DictionaryView {
  readonly element: HTMLElement;
  readonly searchInput: HTMLInputElement;
  private readonly count: HTMLElement;
  private readonly list: HTMLElement;
  private readonly detail: HTMLElement;
  private selectedId: string | undefined;
  private query = '';

  constructor(private readonly app: ViewHost) {
    this.searchInput = h('input', {
      type: 'search',
      class: 'search-input',
      placeholder: 'Search types, ids, members…',
      'aria-label': 'Search the type dictionary',
      spellcheck: 'false',
      autocomplete: 'off',
    });
    this.searchInput.addEventListener('input', () => {
      this.query = this.searchInput.value;
      this.renderList();
      this.app.replaceRoute({ view: 'dictionary', instance: undefined, typeId: this.selectedId, query: this.query });
    });
    this.searchInput.addEventListener('keydown', (event) => {
      if (event.key === 'ArrowDown') {
        event.preventDefault();
        this.list.querySelector<HTMLElement>('a')?.focus();
      }
    });
    this.count = h('div', { class: 'list-count', 'aria-live': 'polite' });
    this.list = h('ul', { class: 'type-list', 'aria-label': 'Types' });
    this.list.addEventListener('keydown', (event) => this.onListKey(event));
    this.detail = h('article', { class: 'type-detail', 'aria-label': 'Type' });
    this.element = h(
      'section',
      { class: 'view dictionary-view', 'aria-label': 'Type dictionary' },
      h('div', { class: 'type-pane' }, h('div', { class: 'search-bar' }, this.searchInput), this.count, this.list),
      this.detail,
    );
  }

  show(typeId: string | undefined, query: string): void {
    this.selectedId = typeId;
    if (query !== this.query || this.searchInput.value !== query) {
      this.query = query;
      this.searchInput.value = query;
    }
    this.renderList();
    this.renderDetail();
    this.list.querySelector('.type-item.selected')?.scrollIntoView({ block: 'nearest' });
  }

  refresh(): void {
    this.renderList();
    this.renderDetail();
  }

  private dictionary(): TypeDictionary {
    return this.app.types.current();
  }

  private matches(): Match[] {
    const dictionary = this.dictionary();
    const tokens = this.query.toLowerCase().split(/\s+/).filter((t) => t !== '');
    const out: Match[] = [];
    for (const entry of dictionary.entries) {
      if (tokens.length === 0) {
        out.push({ entry, rank: 0, hint: undefined });
        continue;
      }
      let rank = 0;
      let hint: string | undefined;
      let all = true;
      const name = entry.name.toLowerCase();
      const short = shortTypeName(entry.name).toLowerCase();
      for (const token of tokens) {
        if (short === token) rank += 0;
        else if (short.startsWith(token)) rank += 1;
        else if (name.includes(token)) rank += 2;
        else if (entry.id === token.replace(/^0+/, '')) rank += 0;
        else {
          const member = findMember(entry.members, token);
          if (member === undefined) {
            all = false;
            break;
          }
          rank += 5;
          hint = member.kind === 'enum' ? `enum constant ${member.name}` : `member ${member.name}: ${shortTypeName(member.typeName)}`;
        }
      }
      if (all) out.push({ entry, rank, hint });
    }
    out.sort((a, b) => a.rank - b.rank || compareIds(a.entry.id, b.entry.id));
    return out;
  }

  private renderList(): void {
    const dictionary = this.dictionary();
    const matches = this.matches();
    const shown = matches.slice(0, MAX_LISTED);
    this.count.textContent =
      this.query.trim() === ''
        ? `${groupDigits(dictionary.entries.length)} types`
        : `${groupDigits(matches.length)} of ${groupDigits(dictionary.entries.length)} types match`;
    const items = shown.map(({ entry, hint }) => {
      const versions = dictionary.versions(entry);
      const badges: HTMLElement[] = [];
      if (entry.enumConstants.length > 0 && entry.primitive === undefined) badges.push(h('span', { class: 'badge enum' }, 'enum'));
      if (entry.primitive !== undefined) badges.push(h('span', { class: 'badge' }, 'primitive'));
      if (versions.length > 1) {
        const n = versions.indexOf(entry) + 1;
        badges.push(h('span', { class: `badge ${dictionary.isCurrent(entry) ? 'version' : 'legacy'}`, title: dictionary.isCurrent(entry) ? 'current version' : 'older version (legacy type)' }, `v${n}/${versions.length}`));
      }
      const pkg = packageOf(entry.name);
      return h(
        'li',
        null,
        h(
          'a',
          {
            class: `type-item${entry.id === this.selectedId ? ' selected' : ''}`,
            href: this.app.href({ view: 'dictionary', instance: undefined, typeId: entry.id, query: this.query }),
            'aria-current': entry.id === this.selectedId ? 'true' : undefined,
            'data-type-id': entry.id,
          },
          h('span', { class: 'type-id' }, entry.id),
          h('span', { class: 'type-name' }, h('span', { class: 'short' }, shortTypeName(entry.name)), pkg === '' ? null : h('span', { class: 'pkg' }, ` ${pkg}`)),
          badges,
          hint === undefined ? null : h('span', { class: 'match-hint' }, hint),
        ),
      );
    });
    if (matches.length > shown.length) items.push(h('li', { class: 'more' }, `…and ${groupDigits(matches.length - shown.length)} more; refine the search.`));
    if (matches.length === 0) items.push(h('li', { class: 'more' }, 'No type matches. Search looks at type names, type ids and member names.'));
    clear(this.list, items);
  }

  private onListKey(event: KeyboardEvent): void {
    const links = [...this.list.querySelectorAll<HTMLAnchorElement>('a.type-item')];
    const index = links.indexOf(document.activeElement as HTMLAnchorElement);
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const next = links[Math.max(0, Math.min(links.length - 1, index + (event.key === 'ArrowDown' ? 1 : -1)))];
      if (index === 0 && event.key === 'ArrowUp') this.searchInput.focus();
      else next?.focus();
    }
  }

  private renderDetail(): void {
    const dictionary = this.dictionary();
    const entry = this.selectedId === undefined ? undefined : dictionary.get(this.selectedId);
    if (entry === undefined) {
      clear(this.detail, this.overview(dictionary));
      return;
    }
    const versions = dictionary.versions(entry);
    const current = dictionary.isCurrent(entry);
    const parts: (HTMLElement | null)[] = [];
    parts.push(
      h(
        'header',
        { class: 'detail-head' },
        h('h2', null, shortTypeName(entry.name), h('span', { class: 'type-id-big' }, ` type id ${entry.id}`)),
        h('div', { class: 'full-name' }, readableTypeName(entry.name)),
        this.app.ownApi ? h('p', null, h('a', { class: 'button small instances-link', href: this.app.href({ view: 'types', instance: undefined, typeId: entry.id, offset: 0 }) }, 'Instances of this type ›')) : null,
        versions.length > 1
          ? h('p', { class: current ? 'hint' : 'legacy-note' }, current ? `Current version ${versions.length} of ${versions.length}.` : `Older version ${versions.indexOf(entry) + 1} of ${versions.length}: objects stored before the class changed keep this layout.`)
          : null,
      ),
    );
    if (entry.primitive !== undefined) parts.push(h('p', null, `Primitive: ${entry.primitive}.`));
    if (entry.enumConstants.length > 0) {
      parts.push(h('section', null, h('h3', null, `Enum constants (${entry.enumConstants.length})`), h('ol', { class: 'enum-list', start: 0 }, entry.enumConstants.map((c) => h('li', null, h('code', null, c))))));
    }
    if (entry.instanceMembers.length > 0) {
      parts.push(h('section', null, h('h3', null, `Members (${entry.instanceMembers.length}, in storage order)`), this.membersTable(entry.instanceMembers)));
    } else if (entry.primitive === undefined) {
      parts.push(h('p', { class: 'hint' }, 'No stored members: objects of this type have no content (singletons, empty collections, markers).'));
    }
    parts.push(h('section', null, h('h3', null, `Versions (${versions.length})`), this.versionsTable(versions, entry)));
    const users = usedBy(dictionary, entry);
    if (users.length > 0) {
      parts.push(
        h(
          'section',
          null,
          h('h3', null, 'Declared as a field type in'),
          h('ul', { class: 'used-by' }, users.slice(0, 50).map(({ owner, member }) => h('li', null, h('a', { href: this.link(owner.id) }, shortTypeName(owner.name)), `.${member.name}`))),
          users.length > 50 ? h('p', { class: 'hint' }, `…and ${users.length - 50} more.`) : null,
        ),
      );
    }
    parts.push(h('section', null, h('h3', null, 'Dictionary entry'), h('pre', { class: 'source-box' }, entry.source)));
    clear(this.detail, parts);
  }

  private overview(dictionary: TypeDictionary): HTMLElement {
    const names = new Set(dictionary.entries.map((e) => e.name));
    const evolved = [...names].filter((n) => (dictionary.versions(dictionary.entries.find((e) => e.name === n) as TypeEntry).length > 1));
    const own = dictionary.entries.filter((e) => !/^(java|javax|one\.microstream|sun|jdk)\./.test(e.name) && !e.name.startsWith('[') && e.primitive === undefined);
    return h(
      'div',
      { class: 'overview' },
      h('h2', null, 'Type dictionary'),
      h(
        'p',
        null,
        `${groupDigits(dictionary.entries.length)} type entries for ${groupDigits(names.size)} class names. Every stored object names its type by id; the entry lists the members in the order they are stored.`,
      ),
      evolved.length > 0 ? h('p', null, `${evolved.length} class${evolved.length === 1 ? ' has' : 'es have'} more than one version (the class changed after objects were stored).`) : null,
      own.length > 0
        ? h('section', null, h('h3', null, 'Application types'), h('ul', { class: 'used-by columns' }, own.map((e) => h('li', null, h('a', { href: this.link(e.id) }, shortTypeName(e.name)), h('span', { class: 'hint' }, ` ${e.id}`)))))
        : null,
      h('p', { class: 'hint' }, 'Select a type on the left, or search by name, id or member name.'),
    );
  }

  private link(typeId: string): string {
    return this.app.href({ view: 'dictionary', instance: undefined, typeId, query: this.query });
  }

  private typeLink(typeName: string): HTMLElement | string {
    const dictionary = this.dictionary();
    const target = dictionary.entries.filter((e) => e.name === typeName).pop();
    const text = shortTypeName(typeName);
    return target === undefined ? text : h('a', { href: this.link(target.id), title: readableTypeName(typeName) }, text);
  }

  private membersTable(members: readonly Member[]): HTMLElement {
    const rows: HTMLElement[] = [];
    const add = (list: readonly Member[], depth: number): void => {
      list.forEach((m, i) => {
        const name = h('td', { class: 'm-name' }, depth === 0 ? null : h('span', { class: 'nest' }, '└ '), h('code', null, m.name));
        name.style.paddingLeft = `${8 + depth * 18}px`;
        rows.push(
          h(
            'tr',
            null,
            h('td', { class: 'm-index' }, depth === 0 ? String(i) : ''),
            name,
            h('td', null, m.kind === 'field' ? this.typeLink(m.typeName) : h('span', { class: 'kind' }, kindText(m))),
            h('td', { class: 'm-owner' }, m.qualifier === undefined ? '' : this.typeLink(m.qualifier)),
          ),
        );
        if (m.kind === 'list') add(m.nested, depth + 1);
      });
    };
    add(members, 0);
    return h(
      'table',
      { class: 'members' },
      h('thead', null, h('tr', null, h('th', null, '#'), h('th', null, 'Name'), h('th', null, 'Type'), h('th', null, 'Declared in'))),
      h('tbody', null, rows),
    );
  }

  private versionsTable(versions: readonly TypeEntry[], selected: TypeEntry): HTMLElement {
    const rows = versions.map((v, i) => {
      const previous = i > 0 ? versions[i - 1] : undefined;
      const changes = previous === undefined ? 'first version' : describeChanges(previous, v);
      return h(
        'tr',
        { class: v === selected ? 'selected' : '' },
        h('td', null, `v${i + 1}`),
        h('td', null, v === selected ? h('strong', null, v.id) : h('a', { href: this.link(v.id) }, v.id)),
        h('td', null, `${v.instanceMembers.length} member${v.instanceMembers.length === 1 ? '' : 's'}`),
        h('td', null, changes),
        h('td', null, i === versions.length - 1 ? h('span', { class: 'badge version' }, 'current') : ''),
      );
    });
    return h('table', { class: 'versions' }, h('thead', null, h('tr', null, h('th', null, ''), h('th', null, 'Type id'), h('th', null, 'Size'), h('th', null, 'Changes'), h('th', null, ''))), h('tbody', null, rows));
  }
}

function kindText(m: Member): string {
  switch (m.kind) {
    case 'list':
      return `list of (${m.nested.map((n) => shortTypeName(n.typeName)).join(', ')})`;
    case 'char':
      return 'characters';
    case 'byte':
      return 'bytes';
    default:
      return m.typeName;
  }
}

function findMember(members: readonly Member[], token: string): Member | undefined {
  for (const m of members) {
    if (m.name.toLowerCase().includes(token) && m.kind !== 'primitive') return m;
    const nested = findMember(m.nested, token);
    if (nested !== undefined) return nested;
  }
  return undefined;
}

function memberKey(m: Member): string {
  return `${m.qualifier ?? ''}#${m.name}`;
}

/** `+ label: String, − code: char, weight: int → long` */
function describeChanges(before: TypeEntry, after: TypeEntry): string {
  const old = new Map(before.instanceMembers.map((m) => [memberKey(m), m]));
  const now = new Map(after.instanceMembers.map((m) => [memberKey(m), m]));
  const parts: string[] = [];
  for (const [key, m] of now) {
    const was = old.get(key);
    if (was === undefined) parts.push(`+ ${m.name}: ${shortTypeName(m.typeName)}`);
    else if (was.typeName !== m.typeName) parts.push(`${m.name}: ${shortTypeName(was.typeName)} → ${shortTypeName(m.typeName)}`);
  }
  for (const [key, m] of old) if (!now.has(key)) parts.push(`− ${m.name}: ${shortTypeName(m.typeName)}`);
  if (parts.length === 0) {
    const reordered = before.instanceMembers.map(memberKey).join() !== after.instanceMembers.map(memberKey).join();
    return reordered ? 'members reordered' : 'same members';
  }
  return parts.join(', ');
}

function usedBy(dictionary: TypeDictionary, entry: TypeEntry): { owner: TypeEntry; member: Member }[] {
  const out: { owner: TypeEntry; member: Member }[] = [];
  for (const owner of dictionary.entries) {
    if (!dictionary.isCurrent(owner)) continue;
    for (const m of owner.instanceMembers) if (m.kind === 'field' && m.typeName === entry.name) out.push({ owner, member: m });
  }
  return out;
}
