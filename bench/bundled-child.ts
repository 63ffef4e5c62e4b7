import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A benchmark's child script bundled into plain JavaScript by esbuild (packages stay imports; the
 * server's own code is imported from dist/ at run time) and written beside, then renamed into
 * place: a bench started meanwhile (npm run bench beside npm run bench:convert) runs the old
 * script or the new one, never a half-written one.
 */
export async function bundleChild(entry: string, outfile: string): Promise<string> {
  const { build } = await import('esbuild');
  const built = await build({ entryPoints: [entry], outfile, write: false, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning' });
  const script = built.outputFiles.find((f) => f.path === outfile);
  if (script === undefined) throw new Error(`esbuild made no ${outfile}`);
  mkdirSync(dirname(outfile), { recursive: true });
  const partial = `${outfile}.${process.pid}.partial`;
  try {
    writeFileSync(partial, script.contents);
    renameSync(partial, outfile);
  } finally {
    rmSync(partial, { force: true });
  }
  return outfile;
}
