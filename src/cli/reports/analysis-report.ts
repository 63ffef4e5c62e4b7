import type { Static } from 'typebox';
import type { Analysis, StorageInfo, TypeList } from '../../api-contract/schemas.js';
import { readableTypeName as named } from '../../inspect/type-names.js';
import { groupDigits, humanBytes } from './number-text.js';

/**
 * The `analyze` report as text: a summary, the types that take the space, the garbage by type,
 * the missing references with who refers to them, and per data file where the bytes go.
 */

export interface AnalysisReport {
  readonly storage: Static<typeof StorageInfo>;
  readonly types: Static<typeof TypeList>['types'];
  readonly analysis: Static<typeof Analysis>;
}

export function formatAnalysis(report: AnalysisReport, top: number): string {
  const { storage, types, analysis } = report;
  const out: string[] = [];
  const total = storage.bytes;
  const superseded = analysis.files.reduce((n, f) => n + f.supersededBytes, 0);
  const garbage = analysis.unreachable.bytes;
  out.push(`Storage ${storage.directory}: ${count(storage.entities)} objects in ${storage.files} data files of ${storage.channels} channel(s), ${humanBytes(total)}`);
  out.push(`  root ${storage.rootObjectId}, roots entity ${storage.rootsObjectId}, last commit ${storage.lastCommitTime ?? 'unknown'}`);
  out.push(`  graph: ${count(storage.graph.references ?? 0)} references${storage.graph.problemCount ? `, ${storage.graph.problemCount} undecodable records` : ''}`);
  out.push('');
  out.push(`Reachable from the roots: ${count(analysis.reachable.count)} objects, ${humanBytes(analysis.reachable.bytes)}`);
  out.push(`Garbage (unreachable):    ${count(analysis.unreachable.count)} objects, ${humanBytes(garbage)}`);
  out.push(`Superseded records:       ${humanBytes(superseded)} (older versions still in the files)`);
  out.push(`Waste: ${humanBytes(garbage + superseded)} of ${humanBytes(total)} (${percent(garbage + superseded, total)})`);
  out.push('');

  const byBytes = [...types].sort((a, b) => b.liveBytes - a.liveBytes).slice(0, top);
  out.push(`Types by bytes (latest records${types.length > top ? `, top ${top} of ${types.length}` : ''}):`);
  out.push(
    table(
      ['type', 'type id', 'instances', 'bytes', 'unreachable', 'unreachable bytes'],
      byBytes.map((t) => [`${named(t.typeName)}${t.current ? '' : ` (v${t.version})`}`, t.typeId, count(t.instances), humanBytes(t.liveBytes), count(t.instances - t.reachable), humanBytes(t.liveBytes - t.reachableBytes)]),
      [false, true, true, true, true, true],
    ),
  );
  out.push('');

  const garbageTypes = analysis.unreachable.byType.slice(0, top);
  out.push(garbageTypes.length === 0 ? 'Garbage by type: none' : 'Garbage by type:');
  if (garbageTypes.length > 0) out.push(table(['type', 'objects', 'bytes'], garbageTypes.map((t) => [named(t.typeName), count(t.count), humanBytes(t.bytes)]), [false, true, true]));
  out.push('');

  const missing = analysis.missingReferences;
  out.push(`Missing references: ${count(missing.count)} distinct ids referenced but not stored${missing.count === 0 ? '' : ':'}`);
  for (const example of missing.examples) {
    const who = example.referrers.map((r) => `${r.objectId} (${named(r.typeName)}${r.via === null ? '' : ` via ${r.via.text}`})`).join(', ');
    out.push(`  ${example.objectId} ← ${who}${example.referrerCount > example.referrers.length ? `, … ${example.referrerCount} in all` : ''}`);
  }
  if (missing.count > missing.examples.length) out.push(`  … ${count(missing.count - missing.examples.length)} more`);
  out.push('');

  // Past --top, the files with the most waste (superseded and garbage bytes), still in file order.
  const waste = (f: (typeof analysis.files)[number]): number => f.supersededBytes + f.unreachableBytes;
  const shownFiles =
    analysis.files.length <= top ? analysis.files : [...analysis.files].sort((a, b) => waste(b) - waste(a)).slice(0, top).sort((a, b) => analysis.files.indexOf(a) - analysis.files.indexOf(b));
  out.push(analysis.files.length <= top ? 'Data files:' : `Data files (the ${top} of ${analysis.files.length} with the most waste):`);
  out.push(
    table(
      ['file', 'total', 'live', 'superseded', 'garbage', 'waste'],
      shownFiles.map((f) => [f.file, humanBytes(f.totalBytes), humanBytes(f.liveBytes), humanBytes(f.supersededBytes), humanBytes(f.unreachableBytes), percent(f.supersededBytes + f.unreachableBytes, f.totalBytes)]),
      [false, true, true, true, true, true],
    ),
  );
  return `${out.join('\n')}\n`;
}

function table(head: readonly string[], rows: readonly (readonly string[])[], right: readonly boolean[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string => `  ${cells.map((c, i) => (right[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ')}`.trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}

function count(n: number): string {
  return groupDigits(n);
}

function percent(part: number, whole: number): string {
  return whole === 0 ? '0%' : `${((100 * part) / whole).toFixed(1)}%`;
}
