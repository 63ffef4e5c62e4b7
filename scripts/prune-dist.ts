/**
 * Build step right after tsc: removes from dist/ the output of source files moved, renamed or
 * removed (dist-leftovers.ts), which tsc never removes. dist/ is never emptied: while the build
 * runs, and after one that fails (a type error stops it after tsc), the CLI, the tests and the
 * benchmarks that run dist/ find it whole, as before this step.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pruneDist } from './dist-leftovers.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const removed = pruneDist(join(ROOT, 'dist'), join(ROOT, 'src'));
if (removed.length > 0) process.stdout.write(`prune-dist: removed ${removed.length} file(s) no source makes any more: ${removed.join(', ')}\n`);
