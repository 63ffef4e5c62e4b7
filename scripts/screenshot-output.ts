import path from 'node:path';

/**
 * Where `npm run screenshots` writes: test-artifacts/screenshots by default, so that a run never
 * changes the committed README pictures by accident; `-- --readme` (or `--out DIR`) asks for
 * docs/screenshots (or another directory).
 */
export function screenshotOutput(args: readonly string[], repoRoot: string): string {
  const out = args.indexOf('--out');
  if (out >= 0) {
    const dir = args[out + 1];
    if (dir === undefined || dir === '') throw new Error('--out needs a directory');
    return path.resolve(dir);
  }
  return path.join(repoRoot, args.includes('--readme') ? 'docs/screenshots' : 'test-artifacts/screenshots');
}
