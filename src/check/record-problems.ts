import type { DanglingReference, DefectiveRecord, FileStop, LatestRecordsFindings } from './record-findings.js';
import type { MissingReach } from './missing-reachability.js';
import { STORAGE_EXCEPTION, type Problem } from './problem.js';

/** The findings of the record walk, as problems. */

/** Defects of one kind beyond this many are summed up in one problem. */
const LISTED_DEFECTS = 50;

const KEEP_OLDER = 'keeps the newest older version that can be read, if there is one; else the object is lost and listed';

/**
 * `reach` says who holds a reference to a missing object (see missing-reachability.ts); without it
 * every such reference counts as reached at start.
 */
export function recordProblems(findings: LatestRecordsFindings, rootsTypeName: string, reach?: (r: DanglingReference) => MissingReach): Problem[] {
  const problems: Problem[] = [];
  for (const stop of findings.stops) problems.push(stopProblem(stop));

  const unknownTypes = new Map<bigint, DefectiveRecord[]>();
  const others: DefectiveRecord[] = [];
  for (const d of findings.defects) {
    if (d.defect.kind === 'unknown-type') unknownTypes.set(d.header.typeId, [...(unknownTypes.get(d.header.typeId) ?? []), d]);
    else others.push(d);
  }
  for (const [typeId, list] of unknownTypes) {
    const first = list[0]!;
    problems.push({
      code: 'UNKNOWN_TYPE_ID',
      severity: 'refuses-start',
      file: first.file,
      offset: first.offset,
      java: first.defect.java,
      meaning: `${list.length} object${list.length === 1 ? '' : 's'} (newest versions; first: ${first.header.objectId}) have type id ${typeId}, which the type dictionary does not define (an entry lost from the dictionary, or a damaged record header)`,
      rescue: `cannot decode them: ${KEEP_OLDER}`,
      count: list.length,
    });
  }
  const byKind = new Map<string, DefectiveRecord[]>();
  for (const d of others) byKind.set(d.defect.kind, [...(byKind.get(d.defect.kind) ?? []), d]);
  for (const [kind, list] of byKind) {
    list.slice(0, LISTED_DEFECTS).forEach((d) => problems.push(defectProblem(d)));
    if (list.length > LISTED_DEFECTS) {
      const d = list[LISTED_DEFECTS]!;
      problems.push({ ...defectProblem(d), meaning: `${list.length - LISTED_DEFECTS} more objects with this problem (${kind})`, count: list.length - LISTED_DEFECTS });
    }
  }
  if (findings.danglingCount > 0) problems.push(...missingReferenceProblems(findings, reach));
  for (const t of findings.opaqueTypes) {
    problems.push({
      code: 'UNDECLARED_LAYOUT',
      severity: 'harmless',
      file: t.file,
      offset: t.offset,
      meaning: `${t.count} ${t.typeName} object${t.count === 1 ? '' : 's'}: ${t.reason}. The application's own handler reads them; only generic readers (the REST service, this tool) cannot show them`,
      rescue: 'copies them as they are',
      count: t.count,
    });
  }
  if (findings.readableObjects > 0 && findings.rootsEntities === 0) {
    problems.push({
      code: 'NO_ROOTS',
      severity: 'refuses-start',
      java: { exception: STORAGE_EXCEPTION, message: 'No roots found for existing data.' },
      meaning: `the storage holds objects but no readable roots entity (${rootsTypeName}): nothing can be reached from the application's root`,
      rescue: 'copies the objects; the new storage has no roots either',
    });
  }
  return problems;
}

function defectProblem(d: DefectiveRecord): Problem {
  const refuses = d.defect.refusesStart;
  return {
    code: d.defect.kind === 'invalid-length' ? 'RECORD_LENGTH_INVALID' : d.defect.kind === 'invalid-id' ? 'OBJECT_ID_INVALID' : d.defect.kind === 'wrong-channel' ? 'OBJECT_IN_WRONG_CHANNEL' : 'RECORD_UNREADABLE',
    severity: refuses ? 'refuses-start' : 'data-lost',
    file: d.file,
    offset: d.offset,
    java: d.defect.java,
    meaning: refuses ? d.defect.message : `${d.defect.message}; MicroStream starts, but fails when it loads this object (at start already, if it is reachable from the root without a Lazy reference)`,
    rescue: KEEP_OLDER,
  };
}

function stopProblem(stop: FileStop): Problem {
  const at = `from offset ${stop.offset} to ${stop.file.totalLength}`;
  const base = { file: stop.file.path, offset: stop.offset };
  const rescue = `keeps the records before offset ${stop.offset}; the ${stop.file.totalLength - stop.offset} bytes after it cannot be read${stop.header === undefined ? '' : ` (object ${stop.header.objectId}'s record there: ${KEEP_OLDER})`}`;
  if (/zero length data item/.test(stop.message)) {
    return { ...base, code: 'RECORD_ZERO_LENGTH', severity: 'refuses-start', java: { exception: STORAGE_EXCEPTION, message: 'Zero length data item.' }, meaning: `a record header says length 0 (zeroed or overwritten bytes ${at})`, rescue };
  }
  const implausible = /record length (-?\d+) is implausible/.exec(stop.message);
  if (implausible !== null) {
    // MicroStream 4.1 does not throw here (checked against it): it indexes the file up to this
    // header and starts without what follows; the start fails only when the roots reach an object
    // stored after it (MISSING_REFERENCE_TARGET says whether they do).
    return {
      ...base,
      code: 'RECORD_LENGTH_IMPOSSIBLE',
      severity: 'data-lost',
      java: undefined,
      meaning: `a record header claims ${implausible[1]} bytes, more than any record can have (an overwritten length field): nothing after it in this file can be read, and MicroStream reads nothing after it either (the objects stored there are missing to it)`,
      rescue,
    };
  }
  if (/shorter than its header/.test(stop.message)) {
    return { ...base, code: 'RECORD_LENGTH_IMPOSSIBLE', severity: 'refuses-start', java: undefined, meaning: `${stop.message}: MicroStream misreads the rest of the file and fails to start`, rescue };
  }
  return {
    ...base,
    code: 'RECORD_PAST_COMMITTED_END',
    severity: 'data-lost',
    java: undefined,
    meaning: `${stop.message} (bytes ${at}): ${stop.header === undefined ? 'the record there' : `object ${stop.header.objectId}'s record`} cannot be read, and MicroStream reads nothing after it in this file either (loading that object fails)`,
    rescue,
  };
}

const RESCUE_REFERENCES = 'replaces each reference so that MicroStream starts (a field or a list element: null; a set or map entry: left out; a Lazy: empty) and lists them; --keep-dangling copies them as they are';

/** References to missing objects, one problem per kind of holder: reached at start, behind a Lazy, garbage. */
function missingReferenceProblems(findings: LatestRecordsFindings, reach: ((r: DanglingReference) => MissingReach) | undefined): Problem[] {
  const groups = new Map<MissingReach, DanglingReference[]>();
  for (const r of findings.dangling) {
    const kind = reach?.(r) ?? 'at-start';
    groups.set(kind, [...(groups.get(kind) ?? []), r]);
  }
  const unlisted = findings.danglingCount - findings.dangling.length;
  const problems: Problem[] = [];
  const describe = (list: readonly DanglingReference[], extra: number): string => {
    const n = list.length + extra;
    const examples = list.slice(0, 5).map((r) => `${r.referrerType} ${r.referrer} → ${r.missing}`).join(', ');
    return `${n} reference${n === 1 ? '' : 's'} point${n === 1 ? 's' : ''} to objects that are not in the storage (${examples}${n > 5 ? ', …' : ''})`;
  };
  const atStart = groups.get('at-start');
  if (atStart !== undefined) {
    problems.push({
      code: 'MISSING_REFERENCE_TARGET',
      severity: 'refuses-start',
      file: atStart[0]!.file,
      offset: atStart[0]!.offset,
      java: { exception: STORAGE_EXCEPTION, message: `No entity found for objectId ${atStart[0]!.missing}` },
      meaning: `${describe(atStart, unlisted)}, held by objects reachable from the roots without a Lazy: MicroStream loads that graph at start and fails on the first missing id (the exception names whichever it reaches first)`,
      rescue: RESCUE_REFERENCES,
      count: atStart.length + unlisted,
    });
  }
  const behindLazy = groups.get('behind-lazy');
  if (behindLazy !== undefined) {
    problems.push({
      code: 'MISSING_REFERENCE_TARGET',
      severity: 'data-lost',
      file: behindLazy[0]!.file,
      offset: behindLazy[0]!.offset,
      java: { exception: STORAGE_EXCEPTION, message: `No entity found for objectId ${behindLazy[0]!.missing}` },
      meaning: `${describe(behindLazy, atStart === undefined ? unlisted : 0)}, held by objects reachable from the roots only through a Lazy: MicroStream starts, and loading that Lazy fails`,
      rescue: RESCUE_REFERENCES,
      count: behindLazy.length + (atStart === undefined ? unlisted : 0),
    });
  }
  const garbage = groups.get('garbage-only');
  if (garbage !== undefined) {
    const extra = atStart === undefined && behindLazy === undefined ? unlisted : 0;
    problems.push({
      code: 'MISSING_REFERENCE_TARGET',
      severity: 'harmless',
      file: garbage[0]!.file,
      offset: garbage[0]!.offset,
      meaning: `${describe(garbage, extra)}, held only by objects that are not reachable from the roots (garbage): MicroStream never loads them, and its housekeeping deletes them`,
      rescue: RESCUE_REFERENCES,
      count: garbage.length + extra,
    });
  }
  return problems;
}
