import type { ConvertReport } from '../../convert/convert-report.js';
import { sizeText } from '../options/option-values.js';

/** The text `convert` prints: what was written and what was left out, overall and per type. */
export function convertReportText(report: ConvertReport): string {
  const n = (value: number): string => value.toLocaleString('en-US');
  const bytes = (value: number): string => `${n(value)} bytes`;
  const lines = [
    `storage-inspector convert ${report.source} → ${report.out}`,
    ...(report.rescuedFirst === undefined
      ? []
      : [
          `  Rescued first:     the storage is damaged (${report.rescuedFirst.problems.join(', ')}); converted what rescue keeps: ${n(report.rescuedFirst.keptObjects)} objects ` +
            `(${n(report.rescuedFirst.olderVersions)} in an older version), ${n(report.rescuedFirst.lost)} lost, ${n(report.rescuedFirst.replacedReferences)} references to lost objects replaced` +
            (report.rescuedFirst.rootEntriesLeftOut.length === 0 ? '' : `, roots entries left out: ${report.rescuedFirst.rootEntriesLeftOut.join(', ')}`),
        ]),
    `  Product line:      ${report.from === report.to ? report.to : `${report.from} → ${report.to} (type names as EclipseStore's Storage Migrator rewrites them)`}`,
    `  Channels:          ${report.sourceChannels === report.channels ? report.channels : `${report.sourceChannels} → ${report.channels}`}${report.checksums === 'none' ? '' : `, chunk checksums ${report.checksums}`}`,
    `  Written:           ${n(report.written.objects)} objects, ${bytes(report.written.bytes)}`,
    `  Superseded:        ${n(report.superseded.objects)} older versions left out, ${bytes(report.superseded.bytes)}`,
    `  Garbage:           ${report.keepUnreachable ? `kept (--keep-unreachable)` : `${n(report.garbage.objects)} unreachable objects left out, ${bytes(report.garbage.bytes)}`}`,
    `  Data files:        ${bytes(report.sourceDataBytes)} → ${bytes(report.dataBytes)}${report.sourceDataBytes > 0 ? ` (${((100 * report.dataBytes) / report.sourceDataBytes).toFixed(1)} %)` : ''}`,
    `  Type dictionary:   ${n(report.dictionary.entries)} entries (${n(report.dictionary.leftOut)} unused definitions left out), ${sizeText(report.dictionary.bytes)}`,
    ...currentTypesLines(report, n),
    '',
    '  Per type (written / superseded / garbage, objects and bytes):',
  ];
  for (const t of report.types) {
    const name = t.writtenAs === undefined || t.writtenAs === t.typeName ? t.typeName : `${t.typeName} → ${t.writtenAs}`;
    lines.push(`    ${name}: ${n(t.written)} (${n(t.writtenBytes)}) / ${n(t.superseded)} (${n(t.supersededBytes)}) / ${n(t.garbage)} (${n(t.garbageBytes)})`);
  }
  return `${lines.join('\n')}\n`;
}

/** `--current-types`: what was rewritten into the newest definition, and what kept its stored one and why. */
function currentTypesLines(report: ConvertReport, n: (value: number) => string): string[] {
  const current = report.currentTypes;
  if (current === undefined) return [];
  const lines = [`  Current types:     ${n(current.objects)} objects rewritten into the newest definition of their type`];
  for (const r of current.rewritten) lines.push(`    ${r.typeName}: ${n(r.objects)} from type id ${r.fromTypeId} to ${r.toTypeId}`);
  for (const k of current.kept) {
    const more = k.objects > k.objectIds.length ? `, … (${n(k.objects - k.objectIds.length)} more)` : '';
    lines.push(`    kept in type id ${k.typeId} (newest ${k.newestTypeId}): ${k.typeName}, ${n(k.objects)} objects (${k.objectIds.join(', ')}${more}): ${k.reason}`);
  }
  return lines;
}
