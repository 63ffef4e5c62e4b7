import type { Api } from './api.js';
import { TypeDictionary, type DictionarySource, type TypeEntry } from './dictionary.js';

/** The type dictionary, fetched once and again when an unknown type id shows up. */
export class DictionaryHolder implements DictionarySource {
  private dictionary = new TypeDictionary([]);
  private pending: Promise<void> | undefined;
  private loadedAt = 0;
  /** Bumped by `reset`: answers to loads started before belong to the previous instance. */
  private epoch = 0;
  loaded = false;

  constructor(
    private readonly api: Api,
    private readonly onReload: () => void,
  ) {}

  current(): TypeDictionary {
    return this.dictionary;
  }

  /** Forget the dictionary (another instance is shown now); a load under way no longer counts. */
  reset(): void {
    this.dictionary = new TypeDictionary([]);
    this.pending = undefined;
    this.loaded = false;
    this.loadedAt = 0;
    this.epoch++;
  }

  load(): Promise<void> {
    const epoch = this.epoch;
    this.pending ??= this.api
      .dictionary()
      .then((text) => {
        if (epoch !== this.epoch) return;
        const before = this.dictionary.entries.length;
        this.dictionary = TypeDictionary.parse(text);
        this.loaded = true;
        this.loadedAt = Date.now();
        if (before > 0) this.onReload();
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  async resolve(typeId: string): Promise<TypeEntry | undefined> {
    const known = this.dictionary.get(typeId);
    if (known !== undefined) return known;
    if (Date.now() - this.loadedAt > 1000) await this.load().catch(() => undefined);
    return this.dictionary.get(typeId);
  }
}
