import type { ApiV1 } from '../model/api-v1.js';
import { clear, h } from '../ui/dom.js';
import { groupDigits } from '../ui/format.js';

/**
 * The banner of a damaged storage: one the server serves as far as it can be read although
 * MicroStream would refuse it (`damage` of `/api/v1/storage`, each problem with its file and
 * offset). It stays above every view of that storage; the problems fold out from it.
 */

export interface StorageDamage {
  readonly code: string;
  readonly severity: 'refuses-start' | 'data-lost' | 'harmless';
  readonly file?: string;
  readonly offset?: number;
  readonly message: string;
}

export class DamageBanner {
  readonly element: HTMLElement = h('div', { class: 'damage-banner', role: 'alert', hidden: true });
  private generation = 0;

  /** Another storage is shown: nothing is said until it is asked about. */
  reset(): void {
    this.generation++;
    this.element.hidden = true;
  }

  /** Asks the server about the storage shown (after a switch too) and shows its damage, if any. */
  async load(v1: ApiV1): Promise<void> {
    const generation = ++this.generation;
    this.element.hidden = true;
    let damage: readonly StorageDamage[] | undefined;
    try {
      damage = (await v1.get<{ damage?: StorageDamage[] }>('/storage', 'the storage')).damage;
    } catch {
      return; // the views say what fails; the banner only speaks of damage the server names
    }
    if (generation !== this.generation || damage === undefined || damage.length === 0) return;
    this.show(damage);
  }

  private show(damage: readonly StorageDamage[]): void {
    const problems = damage.length === 1 ? 'the problem' : `the ${groupDigits(damage.length)} problems`;
    clear(
      this.element,
      h(
        'details',
        null,
        h(
          'summary',
          null,
          h('strong', null, 'Damaged storage. '),
          'MicroStream would refuse to start on it; what can still be read is shown, and objects stored in the lost parts are not found. ',
          h('span', { class: 'damage-more' }, h('span', { class: 'when-closed' }, `Show ${problems}`), h('span', { class: 'when-open' }, 'Hide')),
        ),
        h(
          'ul',
          { class: 'damage-list' },
          damage.map((d) =>
            h(
              'li',
              null,
              d.file === undefined ? null : h('code', null, d.file),
              d.file === undefined ? null : d.offset === undefined ? ': ' : ` at offset ${groupDigits(d.offset)}: `,
              h('strong', null, d.code),
              ` (${d.severity}) ${d.message}`,
            ),
          ),
        ),
      ),
    );
    this.element.hidden = false;
  }
}
