import type { GigaMapReport } from '../../gigamap/gigamap-report.js';
import { groupDigits, humanBytes } from './number-text.js';

/** The GigaMap section of the `analyze` report as text: per GigaMap its size, segments and indices. */

export function formatGigaMaps(reports: readonly GigaMapReport[]): string {
  if (reports.length === 0) return '';
  const out: string[] = ['', `GigaMaps: ${reports.length}`];
  for (const r of reports) {
    const listed = r.size === String(r.listed) ? '' : ` (but ${groupDigits(r.listed)} entities in the slots)`;
    out.push(`  GigaMap ${r.objectId}: size ${r.size}${listed}, next entity id ${r.currentId}`);
    out.push(`    segments: ${r.level2Segments} level-2, ${r.level1Segments} level-1 (${humanBytes(r.segmentBytes)}); index bitmaps: ${humanBytes(r.bitmapBytes)}`);
    for (const i of r.indices) {
      out.push(`    index ${i.name}: ${i.kind}${i.unique ? ', unique' : ''}, ${groupDigits(i.keys)} keys, ${groupDigits(i.entities)} entities, bitmaps ${humanBytes(i.bitmapBytes)}`);
    }
    for (const f of r.findings) out.push(`    ! ${f.code}: ${f.message}`);
  }
  return `${out.join('\n')}\n`;
}

