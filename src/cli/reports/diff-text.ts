import type { ElementsChange, MemberChange } from '../../diff/member-changes.js';
import type { ObjectChange, DiffReport } from '../../diff/storage-diff.js';
import type { JsonValue } from '../../inspect/object-view.js';
import { groupDigits } from './number-text.js';

/**
 * `diff`'s report as text: what was compared, the summary (counts per type), type changes, then
 * each differing object with its member changes (old → new, values as the typed API shows them).
 */

export function diffHeadText(a: string, b: string, report: DiffReport): string {
  const s = report.summary;
  const lines = [`comparing ${a}`, `     with ${b}`, ''];
  lines.push(
    report.equal
      ? `no differences: ${groupDigits(s.unchanged)} objects unchanged`
      : `${groupDigits(s.added)} added, ${groupDigits(s.removed)} removed, ${groupDigits(s.changed)} changed, ${groupDigits(s.unchanged)} unchanged objects`,
  );
  // Types with differences; the others only counted (--json lists every type).
  const differing = s.types.filter((t) => t.added + t.removed + t.changed > 0);
  if (differing.length > 0) {
    const width = Math.max(4, ...differing.map((t) => t.typeName.length));
    lines.push('', `${'type'.padEnd(width)}  ${'added'.padStart(9)}  ${'removed'.padStart(9)}  ${'changed'.padStart(9)}  ${'unchanged'.padStart(10)}`);
    for (const t of differing) {
      lines.push(`${t.typeName.padEnd(width)}  ${groupDigits(t.added).padStart(9)}  ${groupDigits(t.removed).padStart(9)}  ${groupDigits(t.changed).padStart(9)}  ${groupDigits(t.unchanged).padStart(10)}`);
    }
    const same = s.types.length - differing.length;
    if (same > 0) lines.push(`(${groupDigits(same)} more types without differences)`);
  }
  if (report.typeChanges.length > 0) {
    lines.push('', 'type changes:');
    for (const t of report.typeChanges) {
      const parts = [
        ...t.membersAdded.map((m) => `+ ${m.type} ${m.member}`),
        ...t.membersRemoved.map((m) => `- ${m.type} ${m.member}`),
        ...t.membersRetyped.map((m) => `~ ${m.member}: ${m.before} → ${m.after}`),
      ];
      lines.push(`  ${t.typeName} (type id ${t.typeIdBefore} → ${t.typeIdAfter}): ${parts.join('; ')}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export function objectChangeText(change: ObjectChange): string {
  const retyped =
    change.typeNameBefore === undefined
      ? ''
      : change.typeNameBefore === change.typeName
        ? ` (type id ${change.typeIdBefore} → ${change.typeIdAfter})`
        : ` (was ${change.typeNameBefore}, type id ${change.typeIdBefore} → ${change.typeIdAfter})`;
  const lines = [`${change.change} ${change.typeName} ${change.objectId}${retyped}`];
  if (change.problem !== undefined) lines.push(`  members not compared: ${change.problem}`);
  for (const m of change.members ?? []) lines.push(...memberLines(m));
  return `${lines.join('\n')}\n`;
}

export function unlistedText(unlisted: number): string {
  return unlisted === 0 ? '' : `… and ${groupDigits(unlisted)} more differing objects (raise --limit to list them)\n`;
}

function memberLines(m: MemberChange): string[] {
  if (!('countBefore' in m)) return [`  ${m.member}: ${valueText(m.before)} → ${valueText(m.after)}`];
  const e = m as ElementsChange;
  const out = [`  ${e.member}: ${e.countBefore === e.countAfter ? `${groupDigits(e.countAfter)} elements` : `${groupDigits(e.countBefore)} → ${groupDigits(e.countAfter)} elements`}`];
  for (const x of e.removed) out.push(`    - [${x.index}] ${valueText(x.value)}`);
  for (const x of e.added) out.push(`    + [${x.index}] ${valueText(x.value)}`);
  for (const x of e.moved) out.push(`    ~ [${x.from}] → [${x.to}] ${valueText(x.value)}`);
  for (const x of e.changedValues) out.push(`    ~ ${valueText(x.key)}: ${valueText(x.before)} → ${valueText(x.after)}`);
  if (e.unlisted > 0) out.push(`    … ${groupDigits(e.unlisted)} more element changes`);
  if (e.comparedElements !== undefined) out.push(`    (the first ${groupDigits(e.comparedElements)} elements compared)`);
  return out;
}

/** A reference as `Type@id "text"`, anything else as JSON. */
function valueText(v: JsonValue | undefined): string {
  if (v === undefined) return '(none)';
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && typeof (v as Record<string, JsonValue>)['objectId'] === 'string') {
    const r = v as Record<string, JsonValue>;
    const typeName = typeof r['typeName'] === 'string' ? r['typeName'] : 'missing';
    return `${typeName}@${String(r['objectId'])}${typeof r['text'] === 'string' ? ` ${JSON.stringify(r['text'])}` : ''}`;
  }
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) return `{${Object.entries(v).map(([k, x]) => `${k}: ${valueText(x)}`).join(', ')}}`;
  return JSON.stringify(v);
}
