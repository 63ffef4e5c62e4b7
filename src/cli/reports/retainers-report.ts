import type { RetainersJson } from '../../api-contract/retained-schemas.js';
import { readableTypeName as named } from '../../inspect/type-names.js';
import { groupDigits, humanBytes } from './number-text.js';

/**
 * The `analyze` report's top retainers as text: the reachable objects that keep the most bytes
 * alive (what would become garbage were each unreachable), each with its retained set by type.
 */

/** Types listed under each retainer. */
export const RETAINER_TYPES = 5;

export function formatRetainers(report: RetainersJson): string {
  const out: string[] = [];
  if (report.retainers.length === 0) return '\nTop retainers: none (nothing is reachable from the roots)\n';
  out.push(`Top retainers (objects by the bytes they keep alive, of ${humanBytes(report.reachableBytes)} reachable; an object and what it holds may both be listed):`);
  const rows = report.retainers.map((r, i) => [String(i + 1), r.objectId, named(r.typeName), groupDigits(r.retainedObjects), humanBytes(r.retainedBytes), `${(100 * r.share).toFixed(1)}%`]);
  const head = ['#', 'object', 'type', 'retained objects', 'retained bytes', 'share'];
  const right = [true, true, false, true, true, true];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string => `  ${cells.map((c, i) => (right[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ')}`.trimEnd();
  out.push(line(head));
  report.retainers.forEach((r, i) => {
    out.push(line(rows[i]!));
    const types = r.byType ?? [];
    const shown = types.map((t) => `${named(t.typeName)} ${groupDigits(t.objects)} × ${humanBytes(t.bytes)}`);
    const listed = types.reduce((n, t) => n + t.objects, 0);
    if (listed < r.retainedObjects) shown.push(`${groupDigits(r.retainedObjects - listed)} more objects of other types`);
    out.push(`      ${shown.join(' · ')}`);
  });
  return `\n${out.join('\n')}\n`;
}
