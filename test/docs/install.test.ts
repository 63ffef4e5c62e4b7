import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../viewer/browser.js';

/**
 * `npm install` on the oldest Node the package supports prints no engine warning: every package
 * the lock file installs accepts that Node (npm warns EBADENGINE for one that does not, as
 * content-disposition@3 did, asking for Node 22: it is pinned to 2.0.1, the same `create` as
 * CommonJS, by an override). And the README says what `npm test` needs and how long it takes.
 */

const semver = createRequire(import.meta.url)('semver') as { minVersion(range: string): { version: string } | null; satisfies(version: string, range: string): boolean };

describe('installing', () => {
  it('every locked package accepts the oldest Node of package.json engines', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    const oldest = semver.minVersion(pkg.engines.node)!.version;
    expect(oldest).toBe('20.19.0');
    const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; engines?: { node?: string } | string[] }> };
    const refusing = Object.entries(lock.packages)
      .filter(([path]) => path !== '')
      .map(([path, entry]) => [path, entry.version, Array.isArray(entry.engines) ? undefined : entry.engines?.node] as const)
      .filter(([, , range]) => range !== undefined && !semver.satisfies(oldest, range))
      .map(([path, version, range]) => `${path}@${version} wants node ${range}`);
    expect(refusing).toEqual([]);
    const pinned = Object.entries(lock.packages).filter(([path]) => path.endsWith('node_modules/content-disposition')).map(([, e]) => e.version);
    expect(pinned.length).toBeGreaterThan(0);
    expect(new Set(pinned)).toEqual(new Set(['2.0.1']));
  });

  it('the README says what npm test needs and how long it takes', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### What `npm test` needs'));
    expect(section).toMatch(/chromium/);
    expect(section).toMatch(/postgresql/);
    expect(section).toMatch(/openjdk-17-jre-headless/);
    expect(section).toMatch(/\.ci\/run/);
    expect(section).toMatch(/takes several minutes/);
  });
});
