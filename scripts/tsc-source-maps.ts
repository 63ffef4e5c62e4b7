import { existsSync, readFileSync } from 'node:fs';
import type { Plugin } from 'rollup';

/**
 * For the build's rollup bundles of tsc's output: each module with the source map tsc wrote
 * beside it, so that the bundle's map leads to the TypeScript sources.
 */
export const withTscMaps: Plugin = {
  name: 'tsc-source-maps',
  load(id) {
    if (!id.endsWith('.js')) return null;
    const code = readFileSync(id, 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
    const mapPath = `${id}.map`;
    return { code, map: existsSync(mapPath) ? readFileSync(mapPath, 'utf8') : null };
  },
};
