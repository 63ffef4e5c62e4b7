import { relative } from 'node:path';
import type { CheckReport, CommitListing } from '../../check/check-storage.js';
import type { Problem, Severity } from '../../check/problem.js';
import type { RescueReport } from '../../rescue/rescue-storage.js';
import type { ReferenceReplacement } from '../../rescue/reference-replacement.js';
import type { CommandIo } from '../io.js';
import { readableTypeName as named } from '../../inspect/type-names.js';
import { groupDigits } from './number-text.js';

/** The texts `check` and `rescue` print, and their JSON forms (ids and timestamps as strings). */

const LABELS: Readonly<Record<Severity, string>> = {
  'refuses-start': 'refuses start',
  'data-lost': 'data lost',
  harmless: 'harmless',
};

const number = groupDigits;

export function checkReportText(report: CheckReport): string {
  const s = report.summary;
  const lines: string[] = [
    `storage-inspector check ${report.directory}`,
    `${s.channels} channel${s.channels === 1 ? '' : 's'}, ${number(s.dataFiles)} data file${s.dataFiles === 1 ? '' : 's'}, ${number(s.committedBytes)} committed bytes, ${number(s.objects)} objects (${number(s.readableObjects)} readable)`,
    '',
  ];
  const count = (severity: Severity): number => report.problems.filter((p) => p.severity === severity).length;
  const verdict = report.javaStarts ? `${report.generation} would start on this storage` : `${report.generation} would refuse to start`;
  lines.push(
    report.problems.length === 0
      ? `${verdict}. No problems found.`
      : `${verdict}. Problems: ${count('refuses-start')} refusing the start, ${count('data-lost')} losing data, ${count('harmless')} harmless.`,
  );
  for (const what of report.notChecked ?? []) lines.push(`Not checked: ${what}.`);
  const shown = fileNamer(report.directory, report.kind);
  for (const problem of report.problems) lines.push('', ...problemText(problem, shown, report.generation));
  if (report.commits !== undefined || report.commitsNote !== undefined) lines.push('', ...commitsText(report.commits ?? [], report.commitsNote, shown));
  lines.push('', `exit code ${report.exitCode}`);
  return `${lines.join('\n')}\n`;
}

/**
 * How the report names a file: below a directory relative to it (as the user sees the storage);
 * a storage kept elsewhere names its files as its source does (`<table>/<file>` for PostgreSQL).
 */
function fileNamer(location: string, kind: string | undefined): (file: string) => string {
  return kind === undefined ? (file) => relative(location, file) : (file) => file;
}

function problemText(p: Problem, shown: (file: string) => string, generation: string): string[] {
  const where = p.file === undefined ? '' : ` ${shown(p.file) || p.file}${p.offset === undefined ? '' : `, offset ${p.offset}`}`;
  const out = [`[${LABELS[p.severity]}]${where}  ${p.code}${p.count === undefined || p.count <= 1 ? '' : ` (${number(p.count)})`}`];
  if (p.java !== undefined) out.push(`  ${generation.split(' ')[0]} says: ${p.java.exception}: ${p.java.message}`);
  out.push(`  What it means:    ${p.meaning}`);
  out.push(`  Rescue:           ${p.rescue}`);
  return out;
}

function commitsText(commits: readonly CommitListing[], note: string | undefined, shown: (file: string) => string): string[] {
  const out = [`Commits (${commits.length}, oldest first; --as-of takes the number, the timestamp or a time):`];
  for (const c of commits) {
    const parts = c.parts.map((p) => `ch${p.channel} file ${p.fileNumber} ${p.to > p.from ? `+${p.to - p.from}` : '+0'}`).join(', ');
    const gone = c.missingFiles.map((f) => `${shown(f.file)} (${number(f.length)} bytes then, ${f.sizeOnDisk === undefined ? 'deleted since' : `${number(f.sizeOnDisk)} now`})`);
    const state = c.recoverable ? 'recoverable' : `not recoverable: ${gone.join(', ')}`;
    out.push(`  ${String(c.number).padStart(5)}  ${new Date(c.time).toISOString()}  ${c.timestamp}  ${parts}  ${state}`);
  }
  if (note !== undefined) out.push(`  (${note})`);
  return out;
}

export function rescueReportText(report: RescueReport): string {
  const lines = [
    `storage-inspector rescue ${report.source} → ${report.out}${report.asOf === undefined ? '' : ` as of commit ${report.asOf.number} (${new Date(report.asOf.time).toISOString()}, timestamp ${report.asOf.timestamp})`}`,
    `kept ${number(report.keptObjects)} objects (${number(report.keptBytes)} bytes) in ${report.channels} channel${report.channels === 1 ? '' : 's'}` +
      `${report.olderVersions.length > 0 ? `, ${number(report.olderVersions.length)} of them in an older version` : ''}; lost ${number(report.lost.length)} objects whose id is known`,
  ];
  const shown = fileNamer(report.source, report.kind);
  if (!report.hasRoots) lines.push('WARNING: no roots entity could be kept: MicroStream refuses the new storage ("No roots found for existing data.")');
  for (const m of report.missingData) {
    const what = m.missingBytes!.from === 0 ? 'missing data file' : 'missing end of';
    lines.push(`${what} ${shown(m.file ?? '')} (committed bytes ${m.missingBytes!.from}..${m.missingBytes!.to}): what was stored there is lost (object ids unknown unless referenced)`);
  }
  for (const r of report.unreadableRegions) lines.push(`unreadable: ${shown(r.file)} bytes ${r.from}..${r.to} (${r.reason}); records stored there are lost`);
  if (report.rootEntriesLeftOut.includes('ROOT')) {
    lines.push("WARNING: the application's root reference is lost (roots entry ROOT left out): the application starts without a root, as on an empty storage; the objects kept are reached from nothing");
  }
  if (report.constantsWrittenAnew.length > 0) {
    lines.push('', `constants the roots list whose records are lost, written anew under their ids (their referrers keep them) (${report.constantsWrittenAnew.length}):`);
    for (const c of report.constantsWrittenAnew) lines.push(`  ${c.objectId} ${named(c.typeName)} (${c.identifier})`);
  }
  if (report.olderVersions.length > 0) {
    lines.push('', 'kept in an older version (the newest one cannot be read):');
    for (const o of report.olderVersions) lines.push(`  ${o.objectId} ${o.typeName === undefined ? '?' : named(o.typeName)}: ${o.reason}`);
  }
  if (report.lost.length > 0) {
    lines.push('', 'lost objects:');
    for (const l of report.lost) lines.push(`  ${l.objectId} ${l.typeName === undefined ? `type id ${l.typeId}` : named(l.typeName)}: ${l.reason}`);
  }
  if (report.replacedCount > 0) {
    lines.push('', `references to objects that are not recovered, replaced so that MicroStream starts (${number(report.replacedCount)}):`);
    for (const r of report.replaced) lines.push(`  ${r.owner} ${r.ownerType} ${r.member} → ${r.lost}: ${REPLACED[r.action]}`);
    if (report.replaced.length < report.replacedCount) lines.push(`  … ${number(report.replacedCount - report.replaced.length)} more`);
  }
  if (report.danglingCount > 0) {
    const why = report.keepDangling
      ? 'kept as they are (--keep-dangling): MicroStream refuses to start ("No entity found for objectId …") when one of them is reached from the roots without a Lazy'
      : 'kept as they are: their records cannot be decoded';
    lines.push('', `WARNING: references to missing objects (${number(report.danglingCount)}), ${why}:`);
    for (const d of report.dangling) lines.push(`  ${d.referrer} ${d.referrerType} → ${d.missing}`);
    if (report.dangling.length < report.danglingCount) lines.push(`  … ${number(report.danglingCount - report.dangling.length)} more`);
  }
  return `${lines.join('\n')}\n`;
}

const REPLACED: Record<ReferenceReplacement['action'], string> = {
  null: 'null',
  'empty-lazy': 'empty Lazy',
  'entry-left-out': 'entry left out',
};

/** JSON with bigint values as decimal strings (64-bit ids never pass through a JS number). */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`;
}

/** Progress on stderr for work that takes more than a second, at most once a second. */
export function progressPrinter(io: CommandIo, command: string): (phase: string, done: number, total: number) => void {
  const started = Date.now();
  let last = started;
  return (phase, done, total) => {
    const now = Date.now();
    if (now - last < 1000) return;
    last = now;
    const percent = total === 0 ? 100 : Math.floor((100 * done) / total);
    io.stderr.write(`storage-inspector ${command}: ${phase} ${percent}% (${number(done)} of ${number(total)} bytes)\n`);
  };
}
