import { describe, expect, it } from 'vitest';
import { acceptAllowsRoutes, matchRoute } from '../../../src/http/java/spark-routing.js';
import { documentationFor, javaStringHash, routeListingJson } from '../../../src/http/java/documentation.js';

describe('matchRoute', () => {
  it.each([
    ['/', { name: 'routes' }],
    ['//', { name: 'routes' }],
    ['/microstream/root', { name: 'root' }],
    ['//microstream/root', { name: 'root' }],
    ['/microstream//object/12', { name: 'object', oid: '12' }],
    ['/microstream/object/12;param=abc', { name: 'object', oid: '12' }],
    ['/microstream/object/%2B12', { name: 'object', oid: '+12' }],
    ['/microstream/object/%zz', { name: 'object', oid: '%zz' }], // a malformed escape stays as it is
    ['/microstream/object/1%3B2;x', { name: 'object', oid: '1;2' }],
    ['/microstream/object/+12', { name: 'object', oid: '+12' }],
    ['/microstream/object/:oid', { name: 'object', oid: ':oid' }],
    ['/microstream/maintenance/filesStatistics', { name: 'statistics' }],
  ])('%s matches', (path, expected) => {
    expect(matchRoute('microstream', path)).toEqual(expected);
  });

  it.each(['/microstream/root/', '/MICROSTREAM/root', '/microstream', '/microstream/object', '/microstream/object/1/', '/microstream/object/1/x', '/microstream/maintenance/filesstatistics'])(
    '%s does not match',
    (path) => {
      expect(matchRoute('microstream', path)).toBeUndefined();
    },
  );

  it('uses the instance name as the first segment', () => {
    expect(matchRoute('store', '/store/root')).toEqual({ name: 'root' });
    expect(matchRoute('store', '/microstream/root')).toBeUndefined();
  });
});

describe('acceptAllowsRoutes', () => {
  it.each([
    [undefined, true],
    ['application/xml', true],
    ['text/html;q=0', false],
    ['text/html;q=0, */*;q=0.1', true],
    ['*/*;q=0', false],
    ['text/*;q=0, application/json', false],
    ['*/*;q=abc', false],
    ['*/*;q=7', true],
  ])('Accept %j → %s', (accept, allowed) => {
    expect(acceptAllowsRoutes(accept)).toBe(allowed);
  });

  it('judges each Accept value on its own when they alternate (the last verdict is kept)', () => {
    const values: [string, boolean][] = [
      ['*/*;q=0', false],
      ['*/*', true],
      ['*/*', true],
      ['text/html;q=0', false],
      ['text/html;q=0', false],
      ['', true],
      ['*/*;q=0', false],
    ];
    for (const [accept, allowed] of values) expect(acceptAllowsRoutes(accept)).toBe(allowed);
  });
});

describe('route listing and documentation', () => {
  it('orders paths like a Java Hashtable of capacity 11', () => {
    const paths = (json: string) => (JSON.parse(json) as { URL: string }[]).map((e) => e.URL);
    expect(paths(routeListingJson('store', 'h'))).toEqual(['h/store/root', 'h/', 'h/store/maintenance/filesStatistics', 'h/store/object/:oid', 'h/store/dictionary']);
    expect(routeListingJson('microstream', undefined)).toContain('"URL":"null/microstream/root"');
  });

  it('writes the Host header without HTML escaping', () => {
    expect(routeListingJson('microstream', 'a=b<c>')).toContain('"URL":"a=b<c>/microstream/root"');
  });

  it('computes Java String.hashCode', () => {
    expect(javaStringHash('')).toBe(0);
    expect(javaStringHash('hello')).toBe(99162322);
    expect((javaStringHash('/microstream/maintenance/filesStatistics') & 0x7fffffff) % 11).toBe(0);
  });

  it('finds documentation by the literal route path only', () => {
    expect(documentationFor('microstream', 'microstream', '/microstream/object/:oid', 'options')).toBe('{"description":"get detailed informations"}');
    expect(documentationFor('microstream', 'microstream', '/microstream/object/1', undefined)).toBeUndefined();
    expect(documentationFor('microstream', 'microstream', '/microstream/root', 'GET')).toBeUndefined();
  });

  it('names the result types of the family that wrote the storage', () => {
    const microstream = documentationFor('microstream', 'store', '/store/object/:oid', 'get') ?? '';
    const eclipsestore = documentationFor('eclipsestore', 'store', '/store/object/:oid', 'get') ?? '';
    expect(microstream).toContain('"one.microstream.storage.restadapter.ViewerRootDescription as Json"');
    expect(eclipsestore).toContain('"org.eclipse.storage.restadapter.types.ViewerRootDescription as Json"');
    expect(eclipsestore.replace('org.eclipse.storage.restadapter.types.', 'one.microstream.storage.restadapter.')).toBe(microstream);
    expect(documentationFor('eclipsestore', 'store', '/store/maintenance/filesStatistics', 'get')).toContain(
      '"org.eclipse.storage.restadapter.types.ViewerStorageFileStatistics as Json"',
    );
    expect(documentationFor('eclipsestore', 'store', '/store/root', 'get')).toBe(documentationFor('microstream', 'store', '/store/root', 'get'));
  });
});
