/**
 * Summarizes V8 CPU profiles (`node --cpu-prof`, or BENCH_CPU_PROF=<dir> npm run bench): self
 * time by function and by source file, so that "where does the time go" has a short answer.
 * Usage: tsx bench/profile-summary.ts <file.cpuprofile | dir> [top=25]
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
  /** Samples per source line (1-based) of this node's own code. */
  readonly positionTicks?: readonly { readonly line: number; readonly ticks: number }[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

function shortUrl(url: string): string {
  if (url === '') return '(native)';
  const at = url.search(/\/(src|dist|node_modules|bench)\//);
  return at < 0 ? url.replace(/^file:\/\//, '') : url.slice(at + 1);
}

function summarize(path: string, top: number): void {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfMicros = new Map<number, number>();
  profile.samples.forEach((id, i) => selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...selfMicros.values()].reduce((a, b) => a + b, 0);
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  const lineTicks = new Map<string, number>();
  for (const node of profile.nodes) {
    if (node.callFrame.url === '' || node.callFrame.url.startsWith('node:')) continue;
    for (const { line, ticks } of node.positionTicks ?? []) {
      const key = `${shortUrl(node.callFrame.url)}:${line} (${node.callFrame.functionName || '(anonymous)'})`;
      lineTicks.set(key, (lineTicks.get(key) ?? 0) + ticks);
    }
  }
  const allTicks = profile.samples.length;
  for (const [id, micros] of selfMicros) {
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined) continue;
    const file = shortUrl(frame.url);
    const fn = `${frame.functionName || '(anonymous)'} ${file}${frame.url === '' ? '' : `:${frame.lineNumber + 1}`}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + micros);
    const group = file.startsWith('node_modules/') ? file.split('/').slice(0, file.startsWith('node_modules/@') ? 3 : 2).join('/') : file;
    byFile.set(group, (byFile.get(group) ?? 0) + micros);
  }
  const print = (title: string, entries: Map<string, number>): void => {
    console.log(`  ${title}:`);
    for (const [name, micros] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`    ${((100 * micros) / total).toFixed(1).padStart(5)}%  ${(micros / 1000).toFixed(0).padStart(7)} ms  ${name}`);
    }
  };
  console.log(`${path}: ${(total / 1000).toFixed(0)} ms sampled`);
  print('self time by function', byFunction);
  print('self time by file or package', byFile);
  console.log('  hottest lines (share of all samples):');
  for (const [line, ticks] of [...lineTicks].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`    ${((100 * ticks) / allTicks).toFixed(1).padStart(5)}%  ${line}`);
  }
}

const [target = '', topText = '25'] = process.argv.slice(2);
const files = statSync(target).isDirectory()
  ? readdirSync(target)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => join(target, f))
  : [target];
for (const file of files) summarize(file, Number(topText));
