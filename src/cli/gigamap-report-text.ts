import type { GigaMapReport } from '../gigamap/gigamap-report.js';

/** The GigaMap section of the `analyze` report as text: per GigaMap its size, segments and indices. */

export function formatGigaMaps(reports: readonly GigaMapReport[]): string {
  if (reports.length === 0) return '';
  const out: string[] = ['', `GigaMaps: ${reports.length}`];
  for (const r of reports) {
    const listed = r.size === String(r.listed) ? '' : ` (but ${count(r.listed)} entities in the slots)`;
    out.push(`  GigaMap ${r.objectId}: size ${r.size}${listed}, next entity id ${r.currentId}`);
    out.push(`    segments: ${r.level2Segments} level-2, ${r.level1Segments} level-1 (${bytes(r.segmentBytes)}); index bitmaps: ${bytes(r.bitmapBytes)}`);
    for (const i of r.indices) {
      out.push(`    index ${i.name}: ${i.kind}${i.unique ? ', unique' : ''}, ${count(i.keys)} keys, ${count(i.entities)} entities, bitmaps ${bytes(i.bitmapBytes)}`);
    }
    for (const f of r.findings) out.push(`    ! ${f.code}: ${f.message}`);
  }
  return `${out.join('\n')}\n`;
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 2 : 1)} ${units[unit]}`;
}
