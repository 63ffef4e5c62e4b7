import { hash32, type Prng } from './prng.js';

/** Plausible names, titles, prices and dates for generated objects, including non-ASCII text. */

const FIRST_NAMES = ['Anna', 'Ben', 'Chloé', 'David', 'Emma', 'Felix', 'Greta', 'Hiroshi', 'Ines', 'Jonas', 'Katarzyna', 'Lars', 'Mia', 'Noah', 'Olga', 'Pavel', 'Zoë', 'Søren', 'Ahmet', 'Yuki'];
const LAST_NAMES = ['Müller', 'Schmidt', 'Dubois', 'García', 'Rossi', 'Nowak', 'Johansson', 'Smith', 'Tanaka', 'Kowalski', 'Öztürk', 'Ivanova', 'O\'Brien', 'Nguyen', '山田', 'Lindqvist'];
const ADJECTIVES = ['Silent', 'Hidden', 'Last', 'Golden', 'Broken', 'Endless', 'Quiet', 'Burning', 'Frozen', 'Little', 'Curious', 'Wandering'];
const NOUNS = ['River', 'Garden', 'Algorithm', 'Kingdom', 'Winter', 'Machine', 'Letter', 'Harbor', 'Forest', 'Theorem', 'Journey', 'Lighthouse'];
export const LANGUAGES = ['en', 'de', 'fr', 'ja'] as const;

export function personName(rng: Prng): string {
  return `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`;
}

export function bookTitle(rng: Prng, index: number): string {
  return `The ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)} #${index}`;
}

export function shelfLabel(number: number): string {
  return `Shelf ${String.fromCharCode(65 + (number % 26))}-${number}`;
}

/** A BigDecimal text with two decimals, e.g. `12.99`. */
export function price(rng: Prng): string {
  const cents = 199 + rng.below(9800);
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

/** Epoch milliseconds between 1940 and 2010, on whole seconds. */
export function birthDate(rng: Prng): number {
  const from = -946_771_200_000;
  const span = 2_208_988_800_000;
  return from + Math.floor(rng.float() * (span / 1000)) * 1000;
}

export function bytes(rng: Prng, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = rng.next() & 0xff;
  return out;
}

export function ratings(rng: Prng, count: number): Int32Array {
  const out = new Int32Array(count);
  for (let i = 0; i < count; i++) out[i] = 1 + rng.below(5);
  return out;
}

/** Attributes of a book that are derived from its index alone (so an update can recompute them). */
export interface BookTraits {
  readonly tag: number;
  readonly pages: number;
  readonly score: number;
  readonly edition: number;
  readonly language: number;
}

export function bookTraits(seed: number, index: number): BookTraits {
  const h = hash32(seed, index);
  const g = hash32(h, 0x5bd1e995);
  return {
    tag: h % 6,
    pages: 40 + (g % 1200),
    score: (h >>> 8) / 16777216 * 5,
    edition: 1 + (g >>> 24) % 5,
    language: (g >>> 16) % LANGUAGES.length,
  };
}
