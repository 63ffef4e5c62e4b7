import type { Static } from 'typebox';
import type { CheckReport } from '../../check/check-storage.js';
import type { Analysis } from '../../api-contract/schemas.js';
import { relativeDeep, storageDirectoryName } from '../../api-contract/storage-paths.js';
import { ApiAnswerError } from '../api-client.js';
import { offsetOf, short, TextBudget, truncationMarker } from '../budget.js';
import { fullName, simpleName, viaText } from '../render.js';
import { answer, cursorInput, guarded, limitInput, READ_ONLY, storageInput, storageOf, type ToolRegistrar } from '../tool-kit.js';

/** `analyze_storage` (garbage, missing references, waste per file) and `check_storage`. */

function kb(bytes: number): string {
  return bytes < 10_240 ? `${bytes} B` : bytes < 10_485_760 ? `${Math.round(bytes / 1024)} KiB` : `${Math.round(bytes / 1_048_576)} MiB`;
}

/** One check at a time per process: a check reads every record. */
let checking: Promise<unknown> = Promise.resolve();

export const registerAnalysisTools: ToolRegistrar = (server, deps) => {
  server.registerTool(
    'analyze_storage',
    {
      title: 'Garbage, missing references, waste',
      description:
        'What takes the space and what is wrong in the object graph: reachable vs unreachable (garbage) objects and bytes by class, ids that are referenced but not stored (missing references, with who refers to them), and per data file the bytes of superseded old versions and of garbage. The answer is /api/v1/analysis.',
      inputSchema: {
        ...storageInput(deps.registry),
        top: limitInput('classes and files listed in the text', 10, 100),
        examples: limitInput('missing ids listed with their referrers', 10, 100),
      },
      annotations: { title: 'Garbage, missing references, waste', ...READ_ONLY },
    },
    (args) =>
      guarded(async () => {
        const top = args.top ?? 10;
        const result = await deps.api.get<Static<typeof Analysis>>(storageOf(args), '/analysis', { examples: args.examples ?? 10, referrers: 3 });
        const out = new TextBudget();
        out.add(`reachable: ${result.reachable.count} objects, ${kb(result.reachable.bytes)}; unreachable (garbage): ${result.unreachable.count} objects, ${kb(result.unreachable.bytes)}`);
        if (result.unreachable.byType.length > 0) {
          out.add('garbage by class (largest first):');
          for (const t of result.unreachable.byType.slice(0, top)) out.add(`  ${fullName(t.typeName)} [type id ${t.typeId}]: ${t.count} objects, ${kb(t.bytes)}`);
          if (result.unreachable.byType.length > top) out.addAlways(`  truncated: ${result.unreachable.byType.length - top} more classes (raise top, at most 100)`);
        }
        const missing = result.missingReferences;
        out.add(`missing references: ${missing.count} id(s) referenced but not stored`);
        for (const m of missing.examples) {
          out.add(`  ${m.objectId}, referred to by ${m.referrerCount}: ${m.referrers.map((r) => `${r.objectId} ${simpleName(r.typeName)}${viaText(r.via)}`).join('; ')}`);
        }
        if (missing.count > missing.examples.length) out.addAlways(`  truncated: ${missing.count - missing.examples.length} more missing ids (raise examples, at most 100)`);
        const files = [...result.files].sort((a, b) => b.supersededBytes + b.unreachableBytes - (a.supersededBytes + a.unreachableBytes));
        out.add('waste per data file (superseded old versions + garbage, most first):');
        for (const f of files.slice(0, top)) {
          out.add(`  ${f.file}: ${kb(f.totalBytes)}, superseded ${kb(f.supersededBytes)}, garbage ${kb(f.unreachableBytes)} (${f.unreachableCount} objects)`);
        }
        if (files.length > top) out.addAlways(`  truncated: ${files.length - top} more files (raise top, at most 100)`);
        return answer(out.text(), result as unknown as Record<string, unknown>);
      }),
  );

  if (deps.checkSource === undefined) return;
  const checkSource = deps.checkSource;
  server.registerTool(
    'check_storage',
    {
      title: 'Diagnose a damaged storage',
      description:
        'Runs the storage check: would MicroStream/EclipseStore start on these files, and is anything unreadable or lost (transaction logs against data files, record headers, type ids, undecodable records, missing references, the lock file). Each finding has a severity, file and offset, what Java would throw, what it means and what `storage-inspector rescue` would do. Reads every record: slow on large storages. Findings are paged. The answer is the report of `storage-inspector check --json`, its problems paged.',
      inputSchema: { ...storageInput(deps.registry), limit: limitInput('findings'), cursor: cursorInput },
      annotations: { title: 'Diagnose a damaged storage', ...READ_ONLY },
    },
    (args) =>
      guarded(async () => {
        const context = deps.api.context(storageOf(args));
        const source = checkSource(context);
        if (source === undefined) throw new ApiAnswerError(404, 'Not Found', `storage ${context.name} cannot be checked from here`);
        // The check's code (about 130 ms to load) is loaded by the first call, not by every start of the MCP server.
        const run = checking.then(async () => (await import('../../check/check-storage.js')).checkStorage(source));
        checking = run.catch(() => undefined);
        // Files named relative to the storage, the storage by its directory's name: not where the server keeps them.
        const full: CheckReport = await run;
        const report: CheckReport = { ...relativeDeep(context.storage, full), directory: storageDirectoryName(context.storage, full.directory) };
        const offset = offsetOf(args.cursor);
        const limit = args.limit ?? 20;
        const problems = report.problems.slice(offset, offset + limit);
        const out = new TextBudget();
        const s = report.summary;
        out.add(`check of ${context.name}: ${report.javaStarts ? 'Java would start on it' : 'Java would REFUSE to start'}; ${report.exitCode === 0 ? 'nothing unreadable' : 'serious problems'}`);
        out.add(`${s.channels} channel(s), ${s.dataFiles} data files, ${s.committedBytes} committed bytes, ${s.readableObjects} of ${s.objects} objects readable`);
        out.add(`${report.problems.length} finding(s)${report.problems.length > 0 ? ', most severe first:' : ''}`);
        for (const p of problems) {
          const where = p.file === undefined ? '' : ` ${p.file}${p.offset === undefined ? '' : ` @${p.offset}`}`;
          out.add(`  [${p.severity}] ${p.code}${where}${p.count === undefined ? '' : ` (${p.count})`}: ${short(p.meaning, 300)}`);
          if (p.java !== undefined) out.add(`    Java: ${p.java.exception}: ${short(p.java.message, 300)}`);
          out.add(`    rescue: ${short(p.rescue, 300)}`);
        }
        const rest = report.problems.length - offset - problems.length;
        if (rest > 0) out.addAlways(truncationMarker(rest, offset + problems.length, 'findings'));
        return answer(out.text(), { ...report, problemsTotal: report.problems.length, offset, problems });
      }),
  );
};
