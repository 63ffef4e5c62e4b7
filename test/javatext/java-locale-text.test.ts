/**
 * Tests of `src/javatext/java-locale-text.ts`. Expected texts in the table below are conformance
 * values: each was printed by OpenJDK 17.0.15 (`Locale.forLanguageTag(tag).toString()`), never
 * generated from this module.
 */
import { describe, expect, it } from 'vitest';
import { javaLocaleToString } from '../../src/javatext/java-locale-text.js';

describe('javaLocaleToString', () => {
  it.each([
    ['de-DE', 'de_DE'],
    ['de-DE-POSIX', 'de_DE_POSIX'],
    ['und', ''],
    ['', ''],
    ['en', 'en'],
    ['EN-us', 'en_US'],
    ['UND-de', 'und_DE'], // only lower-case "und" is dropped
    ['und-DE', '_DE'],
    ['es-419', 'es_419'],
    // scripts
    ['zh-Hans-CN', 'zh_CN_#Hans'],
    ['ZH-hans-cn', 'zh_CN_#Hans'],
    ['sr-Latn', 'sr__#Latn'],
    ['und-Latn-US', '_US_#Latn'],
    // variants (case kept)
    ['en-US-1234-abcde', 'en_US_1234_abcde'],
    ['en-US-x-lvariant-POSIX', 'en_US_POSIX'],
    ['de-x-lvariant-Posix', 'de__Posix'],
    ['de-DE-1901-x-lvariant-ABC-DEF', 'de_DE_1901_ABC_DEF'],
    ['und-US-x-lvariant-POSIX', '_US_POSIX'],
    ['en-x-foo-lvariant-bar', 'en__bar_#x-foo'],
    ['en-x-abc-lvariant', 'en__#x-abc-lvariant'],
    // extensions: lower case, sorted, private use last
    ['ja-JP-u-ca-japanese', 'ja_JP_#u-ca-japanese'],
    ['en-Latn-US-variant1-u-co-phonebk-x-private', 'en_US_variant1_#Latn_u-co-phonebk-x-private'],
    ['en-u-nu-latn-ca-gregory', 'en__#u-ca-gregory-nu-latn'],
    ['en-u-attr2-attr1-ca-gregory', 'en__#u-attr1-attr2-ca-gregory'],
    ['en-u-ca-x1-ca-x2', 'en__#u-ca-x1-x2'],
    ['en-u-ca', 'en__#u-ca'],
    ['en-u-ab-cd', 'en__#u-ab-cd'],
    ['en-u-ca-japanese-japanese', 'en__#u-ca-japanese-japanese'],
    ['en-u-aaa-bbb-AAA', 'en__#u-aaa-bbb'],
    ['en-u-kk-TRUE-KK-false', 'en__#u-kk-true'],
    ['en-b-bar-a-foo', 'en__#a-foo-b-bar'],
    ['en-a-foo-A-bar', 'en__#a-foo'],
    ['en-z-zzz-y-yyy-x-xxx', 'en__#y-yyy-z-zzz-x-xxx'],
    ['en-US-t-de-DE', 'en_US_#t-de-de'],
    ['de-DE-x-Private', 'de_DE_#x-private'],
    ['de-DE-X-private', 'de_DE_#x-private'],
    // compatibility locales ja_JP_JP and th_TH_TH
    ['ja-JP-x-lvariant-JP', 'ja_JP_JP_#u-ca-japanese'],
    ['ja-JP-u-ca-japanese-x-lvariant-JP', 'ja_JP_JP_#u-ca-japanese'],
    ['th-TH-x-lvariant-TH', 'th_TH_TH_#u-nu-thai'],
    ['ja-JP-x-lvariant-jp', 'ja_JP_jp'],
    // grandfathered tags
    ['i-klingon', 'tlh'],
    ['I-KLINGON', 'tlh'],
    ['art-lojban', 'jbo'],
    ['en-GB-oed', 'en_GB_#x-oed'],
    ['i-default', 'en__#x-i-default'],
    ['i-enochian', ''],
    ['zh-min-nan', 'nan'],
    ['zh-min', 'nan__#x-zh-min'],
    ['sgn-BE-FR', 'sfb'],
    ['no-bok', 'nb'],
    ['cel-gaulish', 'xtg__#x-cel-gaulish'],
    // extlangs
    ['zh-yue-HK', 'yue_HK'],
    ['und-yue', 'yue'],
    ['en-abc-def-ghi-jkl', 'abc'],
    // Java 17 language codes
    ['he', 'he'],
    ['iw-IL', 'he_IL'],
    ['yi', 'yi'],
    ['ji', 'yi'],
    ['id', 'id'],
    ['in-ID', 'id_ID'],
    // lenient parsing: everything from the first ill-formed subtag on is ignored
    ['en_US', ''],
    ['en--US', 'en'],
    ['-en', ''],
    ['en-a', 'en'],
    ['en-a-x-foo', 'en'],
    ['en-x', 'en'],
    ['en-1-abc', 'en'],
    ['en-US-POSIX-toolongsubtag-fr', 'en_US_POSIX'],
    ['abcdefghi', ''],
    ['abcde-DE', 'abcde_DE'],
    ['a', ''],
    ['x-abc', ''],
    ['x-lvariant-POSIX', ''],
  ])('%j -> %j', (tag, expected) => {
    expect(javaLocaleToString(tag)).toBe(expected);
  });
});
