/**
 * Java `Locale.toString()` of `Locale.forLanguageTag(tag)`, rebuilt from the stored language tag.
 *
 * MicroStream stores a `java.util.Locale` as its BCP 47 language tag; the REST service renders
 * Java's `toString()` of the locale Java rebuilds from it (rest-rendering.md §10.4). This module
 * reproduces Java 17's lenient `LanguageTag.parse`, `InternalLocaleBuilder` and `BaseLocale`
 * normalisation (grandfathered tags, extlangs, `x-lvariant`, sorted extensions, old language
 * codes) without a JVM. Pure: only ECMAScript built-ins.
 */

import { lower } from './java-text-util.js';

/** RFC 5646 grandfathered tags and their preferred mappings, as `LanguageTag.LEGACY` has them. */
const LEGACY_LANGUAGE_TAGS: ReadonlyMap<string, string> = new Map([
  ['art-lojban', 'jbo'],
  ['cel-gaulish', 'xtg-x-cel-gaulish'],
  ['en-gb-oed', 'en-GB-x-oed'],
  ['i-ami', 'ami'],
  ['i-bnn', 'bnn'],
  ['i-default', 'en-x-i-default'],
  ['i-enochian', 'und-x-i-enochian'],
  ['i-hak', 'hak'],
  ['i-klingon', 'tlh'],
  ['i-lux', 'lb'],
  ['i-mingo', 'see-x-i-mingo'],
  ['i-navajo', 'nv'],
  ['i-pwn', 'pwn'],
  ['i-tao', 'tao'],
  ['i-tay', 'tay'],
  ['i-tsu', 'tsu'],
  ['no-bok', 'nb'],
  ['no-nyn', 'nn'],
  ['sgn-be-fr', 'sfb'],
  ['sgn-be-nl', 'vgt'],
  ['sgn-ch-de', 'sgg'],
  ['zh-guoyu', 'cmn'],
  ['zh-hakka', 'hak'],
  ['zh-min', 'nan-x-zh-min'],
  ['zh-min-nan', 'nan'],
  ['zh-xiang', 'hsn'],
]);

/** Java `sun.util.locale.StringTokenIterator` over `-`-separated subtags (empty subtags included). */
class SubtagIterator {
  private readonly text: string;
  current = '';
  start = 0;
  end = 0;
  done = false;

  constructor(text: string) {
    this.text = text;
    this.end = this.nextDelimiter(0);
    this.current = text.slice(0, this.end);
  }

  hasNext(): boolean {
    return this.end < this.text.length;
  }

  next(): void {
    if (this.hasNext()) {
      this.start = this.end + 1;
      this.end = this.nextDelimiter(this.start);
      this.current = this.text.slice(this.start, this.end);
    } else {
      this.start = this.end;
      this.current = '';
      this.done = true;
    }
  }

  private nextDelimiter(from: number): number {
    const i = this.text.indexOf('-', from);
    return i < 0 ? this.text.length : i;
  }
}

const isAlpha = (s: string): boolean => /^[A-Za-z]+$/.test(s);
const isAlphaNumeric = (s: string): boolean => /^[A-Za-z0-9]+$/.test(s);
const isLanguage = (s: string): boolean => s.length >= 2 && s.length <= 8 && isAlpha(s);
const isExtlang = (s: string): boolean => s.length === 3 && isAlpha(s);
const isScript = (s: string): boolean => s.length === 4 && isAlpha(s);
const isRegion = (s: string): boolean => (s.length === 2 && isAlpha(s)) || /^[0-9]{3}$/.test(s);
const isVariant = (s: string): boolean =>
  (s.length >= 5 && s.length <= 8 && isAlphaNumeric(s)) || /^[0-9][A-Za-z0-9]{3}$/.test(s);
// Java accepts only letters as singletons (no digits), and not x/X.
const isExtensionSingleton = (s: string): boolean => s.length === 1 && isAlpha(s) && lower(s) !== 'x';
const isExtensionSubtag = (s: string): boolean => s.length >= 2 && s.length <= 8 && isAlphaNumeric(s);
const isPrivateusePrefix = (s: string): boolean => s === 'x' || s === 'X';
const isPrivateuseSubtag = (s: string): boolean => s.length >= 1 && s.length <= 8 && isAlphaNumeric(s);
const isUnicodeAttribute = (s: string): boolean => s.length >= 3 && s.length <= 8 && isAlphaNumeric(s);
const isUnicodeKey = (s: string): boolean => s.length === 2 && isAlphaNumeric(s);

/** ASCII-only case mappings, like `LocaleUtils` (`lower` is shared, in `java-text-util.ts`). */
const upper = (s: string): string => s.replace(/[a-z]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 32));
const title = (s: string): string => upper(s.slice(0, 1)) + lower(s.slice(1));

interface ParsedLanguageTag {
  readonly language: string;
  readonly extlangs: readonly string[];
  readonly script: string;
  readonly region: string;
  readonly variants: readonly string[];
  /** Each with its singleton, e.g. `u-ca-japanese`, in tag order. */
  readonly extensions: readonly string[];
  /** With its `x-` prefix, or empty. */
  readonly privateuse: string;
}

/** Java `LanguageTag.parse(tag, pp, lenient = true)`: parsing stops at the first ill-formed subtag. */
function parseLanguageTag(languageTag: string): ParsedLanguageTag {
  const itr = new SubtagIterator(LEGACY_LANGUAGE_TAGS.get(lower(languageTag)) ?? languageTag);
  let parsedEnd = 0; // ParsePosition.index
  let error = false; // ParsePosition.errorIndex != -1
  const accept = (): string => {
    const s = itr.current;
    parsedEnd = itr.end;
    itr.next();
    return s;
  };

  let language = '';
  if (!itr.done && isLanguage(itr.current)) language = accept();
  const extlangs: string[] = [];
  let script = '';
  let region = '';
  const variants: string[] = [];
  const extensions: string[] = [];
  if (language !== '') {
    while (!itr.done && extlangs.length < 3 && isExtlang(itr.current)) extlangs.push(accept());
    if (!itr.done && isScript(itr.current)) script = accept();
    if (!itr.done && isRegion(itr.current)) region = accept();
    while (!itr.done && isVariant(itr.current)) variants.push(accept());
    while (!itr.done && isExtensionSingleton(itr.current)) {
      const start = itr.start;
      let extension = itr.current;
      itr.next();
      while (!itr.done && isExtensionSubtag(itr.current)) {
        extension += `-${itr.current}`;
        parsedEnd = itr.end;
        itr.next();
      }
      if (parsedEnd <= start) {
        error = true; // "Incomplete extension"
        break;
      }
      extensions.push(extension);
    }
  }
  let privateuse = '';
  if (!itr.done && !error && isPrivateusePrefix(itr.current)) {
    const start = itr.start;
    let text = itr.current;
    itr.next();
    while (!itr.done && isPrivateuseSubtag(itr.current)) {
      text += `-${itr.current}`;
      parsedEnd = itr.end;
      itr.next();
    }
    if (parsedEnd > start) privateuse = text; // else "Incomplete privateuse"
  }
  return { language, extlangs, script, region, variants, extensions, privateuse };
}

/**
 * Java `Locale.toString()` of `Locale.forLanguageTag(languageTag)` (Java 17).
 *
 * `de-DE` → `de_DE`, `de-DE-POSIX` → `de_DE_POSIX`, `und` → empty, `zh-Hans-CN` → `zh_CN_#Hans`,
 * `ja-JP-u-ca-japanese` → `ja_JP_#u-ca-japanese`, `ja-JP-x-lvariant-JP` → `ja_JP_JP_#u-ca-japanese`.
 * Reproduces the lenient parse (everything from the first ill-formed subtag on is ignored),
 * grandfathered tags (`i-klingon` → `tlh`), extlangs (`zh-yue-HK` → `yue_HK`), case
 * normalisation (language lower, script title, region upper, variant as given, extensions
 * lower), `x-lvariant-…` private use as variant, sorted extensions and Unicode locale
 * attributes/keywords, and Java 17's language codes (`iw`/`he` → `he`, `in` → `id`, `ji` → `yi`).
 * Never throws: Java's `forLanguageTag` accepts any string.
 */
export function javaLocaleToString(languageTag: string): string {
  const tag = parseLanguageTag(languageTag);

  // InternalLocaleBuilder.setLanguageTag
  let language = tag.extlangs[0] ?? (tag.language === 'und' ? '' : tag.language);
  const script = tag.script;
  const region = tag.region;
  let variant = tag.variants.join('_');

  // InternalLocaleBuilder.setExtensions: the first extension per singleton wins.
  const others = new Map<string, string>(); // lower-case singleton -> value as given
  let unicode: { attributes: Set<string>; keywords: Map<string, string> } | undefined;
  for (const extension of tag.extensions) {
    const key = lower(extension.slice(0, 1));
    if (key === 'u') {
      if (unicode === undefined) unicode = parseUnicodeLocaleExtension(extension.slice(2));
    } else if (!others.has(key)) {
      others.set(key, extension.slice(2));
    }
  }
  const privateuse = tag.privateuse === '' ? undefined : tag.privateuse.slice(2);

  // InternalLocaleBuilder.getBaseLocale: "x-…-lvariant-A-B" appends "A_B" to the variant.
  if (privateuse !== undefined) {
    const itr = new SubtagIterator(privateuse);
    let sawPrefix = false;
    let privateVariantStart = -1;
    while (!itr.done) {
      if (sawPrefix) {
        privateVariantStart = itr.start;
        break;
      }
      if (lower(itr.current) === 'lvariant') sawPrefix = true;
      itr.next();
    }
    if (privateVariantStart >= 0) {
      const extra = privateuse.slice(privateVariantStart).replaceAll('-', '_');
      variant = variant === '' ? extra : `${variant}_${extra}`;
    }
  }

  // BaseLocale.getInstance
  language = lower(language);
  if (language === 'iw') language = 'he';
  else if (language === 'ji') language = 'yi';
  else if (language === 'in') language = 'id';
  const normalizedScript = title(script);
  const normalizedRegion = upper(region);

  // LocaleExtensions
  const parts = new Map<string, string>();
  for (const [key, value] of others) parts.set(key, `${key}-${lower(value)}`);
  if (unicode !== undefined && (unicode.attributes.size > 0 || unicode.keywords.size > 0)) {
    const subtags = [...unicode.attributes].sort(compareUtf16);
    for (const key of [...unicode.keywords.keys()].sort(compareUtf16)) {
      subtags.push(key);
      const type = unicode.keywords.get(key) ?? '';
      if (type !== '') subtags.push(type);
    }
    parts.set('u', `u-${subtags.join('-')}`);
  }
  let extensionId = [...parts.keys()].sort(compareUtf16).map((k) => parts.get(k) ?? '').join('-');
  if (privateuse !== undefined) {
    const rest = removePrivateuseVariant(privateuse);
    if (rest !== undefined) extensionId += `${extensionId === '' ? '' : '-'}x-${lower(rest)}`;
  }
  // Locale.forLanguageTag: compatibility extensions for ja_JP_JP and th_TH_TH.
  if (extensionId === '' && variant !== '' && normalizedScript === '') {
    if (language === 'ja' && normalizedRegion === 'JP' && variant === 'JP') extensionId = 'u-ca-japanese';
    else if (language === 'th' && normalizedRegion === 'TH' && variant === 'TH') extensionId = 'u-nu-thai';
  }
  return formatLocale(language, normalizedScript, normalizedRegion, variant, extensionId);
}

/** Java `InternalLocaleBuilder.setUnicodeLocaleExtension` (duplicates ignored, case-insensitive). */
function parseUnicodeLocaleExtension(subtags: string): { attributes: Set<string>; keywords: Map<string, string> } {
  const attributes = new Set<string>(); // lower-cased
  const keywords = new Map<string, string>(); // lower-cased key -> lower-cased type
  const itr = new SubtagIterator(subtags);
  while (!itr.done && isUnicodeAttribute(itr.current)) {
    attributes.add(lower(itr.current));
    itr.next();
  }
  let key: string | undefined;
  let typeStart = -1;
  let typeEnd = -1;
  const emit = (k: string): void => {
    keywords.set(k, typeStart === -1 ? '' : lower(subtags.slice(typeStart, typeEnd)));
  };
  while (!itr.done) {
    if (key !== undefined) {
      if (isUnicodeKey(itr.current)) {
        emit(key);
        const next = lower(itr.current);
        key = keywords.has(next) ? undefined : next;
        typeStart = typeEnd = -1;
      } else {
        if (typeStart === -1) typeStart = itr.start;
        typeEnd = itr.end;
      }
    } else if (isUnicodeKey(itr.current)) {
      const next = lower(itr.current);
      key = keywords.has(next) ? undefined : next;
    }
    if (!itr.hasNext()) {
      if (key !== undefined) emit(key);
      break;
    }
    itr.next();
  }
  return { attributes, keywords };
}

/** Java `InternalLocaleBuilder.removePrivateuseVariant`: the private use without `lvariant-…`. */
function removePrivateuseVariant(value: string): string | undefined {
  const itr = new SubtagIterator(value);
  let prefixStart = -1;
  let sawPrivateVariant = false;
  while (!itr.done) {
    if (prefixStart !== -1) {
      sawPrivateVariant = true;
      break;
    }
    if (lower(itr.current) === 'lvariant') prefixStart = itr.start;
    itr.next();
  }
  if (!sawPrivateVariant) return value;
  return prefixStart === 0 ? undefined : value.slice(0, prefixStart - 1);
}

/** Java `Locale.toString()`. */
function formatLocale(language: string, script: string, region: string, variant: string, extensions: string): string {
  const l = language !== '';
  const s = script !== '';
  const r = region !== '';
  const v = variant !== '';
  const e = extensions !== '';
  let result = language;
  if (r || (l && (v || s || e))) result += `_${region}`;
  if (v && (l || r)) result += `_${variant}`;
  if (s && (l || r)) result += `_#${script}`;
  if (e && (l || r)) result += `_${s ? '' : '#'}${extensions}`;
  return result;
}

function compareUtf16(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
