import type { Static } from 'typebox';
import { memberChanges } from '../../../diff/member-changes.js';
import { commitCount, withPoints, type DiffSide } from '../../../diff/open-points.js';
import { referenceSummaries } from '../../../diff/reference-summaries.js';
import { diffStorages, type ObjectChange } from '../../../diff/storage-diff.js';
import { isAppError } from '../../../errors.js';
import { describeObjectView } from '../../../inspect/object-view.js';
import { UTC } from '../../../javatext/java-time-zones.js';
import { parseAsOf, type AsOf } from '../../../rescue/as-of.js';
import { commitLogOf, type CommitLog, type CommitRecord, type CommitSummary } from '../../../storage/history/commit-log.js';
import type { Storage } from '../../../storage/storage.js';
import type { StorageContext } from '../../../registry/storage-registry.js';
import { CommitDetail, CommitDetailQuery, CommitList, CommitParams, CommitQuery, DiffAnswer, DiffQuery } from '../../../api-contract/history-schemas.js';
import { ApiProblem, badRequest, notFound, answers } from '../machinery/problem-details.js';
import type { ApiRoute } from '../machinery/routing.js';

/**
 * The history of the served storage: its commits newest first, what one commit stored (with each
 * object's member changes against its version before, where still on disk), and the diff between
 * two points of its history or two served storages.
 */

/** Types listed per commit in the list (the commit's own answer lists them all). */
const TYPES_IN_LIST = 20;
/** Versions looked through for the one before a commit's record. */
const VERSIONS_LOOKED_AT = 1000;
/** Elements of a collection compared in a commit's member changes. */
const COMPARED_ELEMENTS = 10_000;

export const historyRoutes: readonly ApiRoute[] = [
  {
    path: '/commits',
    schema: {
      summary: 'Every commit of the storage, newest first: time, bytes per channel, objects stored new and updated, types touched, whether still complete on disk',
      description: 'Read from the transaction logs and the commits\' own bytes of the data files (once per state of the storage). `offset` and `limit` page the commits.',
      tags: ['history'],
      querystring: CommitQuery,
      response: answers(CommitList),
    },
    handler: (request, _reply, context) =>
      context.storage.consistent(async () => {
        const query = request.query as Static<typeof CommitQuery>;
        const offset = query.offset ?? 0;
        const limit = query.limit ?? 100;
        const log = await commitLogOf(context.storage);
        const commits = [];
        for (let n = log.size - offset; n >= 1 && commits.length < limit; n--) commits.push(commitJson(context.storage, log.summary(n), TYPES_IN_LIST));
        return { total: log.size, offset, limit, commits };
      }),
  },
  {
    path: '/commits/:timestamp',
    schema: {
      summary: 'One commit: what it stored per type, each object new or updated, with its member changes against the version before (where still on disk)',
      description: 'The objects are paged (`offset`, `limit`) in the order the commit wrote them. Member changes need the graph index (for the versions before); while it is built they are null.',
      tags: ['history'],
      params: CommitParams,
      querystring: CommitDetailQuery,
      response: answers(CommitDetail, 404),
    },
    handler: (request, _reply, context) =>
      context.storage.consistent(async () => {
        const timestamp = BigInt((request.params as Static<typeof CommitParams>).timestamp);
        const query = request.query as Static<typeof CommitDetailQuery>;
        const offset = query.offset ?? 0;
        const limit = query.limit ?? 20;
        const log = await commitLogOf(context.storage);
        const commit = log.history.commitByTimestamp(timestamp);
        if (commit === undefined) throw notFound(`the storage has no commit with timestamp ${timestamp} (${log.size} commits: GET /api/v1/commits)`);
        const records = await log.recordsOf(commit.number, offset, limit);
        const objects = [];
        for (const record of records) objects.push(await commitObject(context, log, record));
        return { commit: commitJson(context.storage, log.summary(commit.number), Number.MAX_SAFE_INTEGER), offset, limit, objects };
      }),
  },
  {
    path: '/diff',
    schema: {
      summary: 'What changed between two points of the storage\'s history (from, to) or two served storages (a, b): per type added, removed, changed, unchanged; the differing objects paged',
      description:
        'Objects are matched by object id and compared byte for byte; the differing ones are described with their member changes. `from`/`to`: a commit number, a commit timestamp or a date-time; a point whose data files housekeeping has deleted is answered 409 naming them. Without from, a and b: what the last commit changed.',
      tags: ['history'],
      querystring: DiffQuery,
      response: answers(DiffAnswer, 400, 404, 409),
    },
    handler: async (request, _reply, context, options) => {
      const query = request.query as Static<typeof DiffQuery>;
      const offset = query.offset ?? 0;
      const limit = query.limit ?? 100;
      const typeNames = query.type === undefined ? undefined : [query.type];
      const run = async (a: DiffSide, b: DiffSide, sameFiles: boolean, names: [string, string]) => {
        const objects: ObjectChange[] = [];
        let seen = 0;
        const report = await diffStorages(a.storage, b.storage, {
          sameFiles,
          typeNames,
          limit: offset + limit,
          onObject: (change) => {
            if (seen++ >= offset) objects.push(change);
          },
        });
        const s = report.summary;
        return { a: sideJson(names[0], a), b: sideJson(names[1], b), equal: report.equal, summary: s, typeChanges: report.typeChanges, offset, limit, total: s.added + s.removed + s.changed, objects };
      };
      try {
        if (query.a !== undefined || query.b !== undefined) {
          if (query.a === undefined || query.b === undefined || query.from !== undefined || query.to !== undefined) throw badRequest('two storages are compared with a and b together, without from and to');
          const ca = served(options.registry.get(query.a), query.a);
          const cb = served(options.registry.get(query.b), query.b);
          return await ca.storage.consistent(() => cb.storage.consistent(() => run({ storage: ca.storage }, { storage: cb.storage }, false, [ca.name, cb.name])));
        }
        // Nothing asked: what the last commit changed.
        let from: AsOf;
        if (query.from !== undefined) from = parseAsOf(query.from);
        else {
          if (query.to !== undefined) throw badRequest('to needs from (a and b compare two served storages)');
          const commits = await commitCount(context.storage.source);
          if (commits < 2) throw badRequest(`the storage has ${commits} commit${commits === 1 ? '' : 's'}: nothing to compare; name two storages with a and b`);
          from = { commit: commits - 1 };
        }
        const to = query.to === undefined ? undefined : parseAsOf(query.to);
        return await withPoints(context.storage.source, from, to, (a, b) => run(a, b, true, [context.name, context.name]));
      } catch (error) {
        if (error instanceof ApiProblem) throw error;
        if (isAppError(error) && error.code === 'USAGE') throw badRequest(error.message);
        if (isAppError(error) && error.code === 'STORAGE_INCONSISTENT') throw new ApiProblem(409, 'History Incomplete', error.message);
        throw error;
      }
    },
  },
];

function served(context: StorageContext | undefined, name: string): StorageContext {
  if (context === undefined) throw notFound(`no storage named ${name} is served`);
  return context;
}

function sideJson(name: string, side: DiffSide) {
  const c = side.commit;
  return { storage: name, commit: c === undefined ? null : { number: c.number, timestamp: String(c.timestamp), time: new Date(c.time).toISOString() } };
}

function commitJson(storage: Storage, s: CommitSummary, maxTypes: number) {
  const c = s.commit;
  return {
    number: c.number,
    timestamp: String(c.timestamp),
    time: new Date(c.time).toISOString(),
    bytes: s.bytes,
    channels: c.parts.filter((p) => p.to > p.from).map((p) => ({ channel: p.channel, fileNumber: String(p.fileNumber), from: p.from, bytes: p.to - p.from })),
    objects: s.objects,
    newObjects: s.newObjects,
    updatedObjects: s.updatedObjects,
    types: s.types.slice(0, maxTypes).map((t) => ({ typeId: String(t.typeId), typeName: storage.dictionary.byId.get(t.typeId)?.typeName ?? `unknown type id ${t.typeId}`, objects: t.objects })),
    complete: s.complete,
  };
}

/** A record of a commit, with its member changes against the object's version before it. */
async function commitObject(context: StorageContext, log: CommitLog, record: CommitRecord) {
  const storage = context.storage;
  const head = {
    objectId: String(record.objectId),
    typeName: storage.dictionary.byId.get(record.typeId)?.typeName ?? `unknown type id ${record.typeId}`,
    change: record.isNew ? ('new' as const) : ('updated' as const),
  };
  const state = context.graph.state;
  if (record.isNew || state.kind !== 'ready') return { ...head, comparedWith: null, members: null };
  const page = await context.versions.list(state.graph, record.objectId, 0, VERSIONS_LOOKED_AT);
  const at = page.versions.findIndex((v) => v.channel === record.channel && v.file.fileNumber === record.file.fileNumber && v.offset === record.offset);
  const before = at < 0 ? undefined : page.versions[at + 1];
  if (before === undefined) return { ...head, comparedWith: null, members: null };
  const resolve = referenceSummaries(storage);
  const view = async (v: typeof before) =>
    describeObjectView(await context.versions.read(v, record.objectId), storage.dictionary, { offset: 0, limit: COMPARED_ELEMENTS, timeZone: UTC, resolve });
  try {
    const members = memberChanges(await view(before), await view(page.versions[at]!), COMPARED_ELEMENTS);
    const beforeCommit = log.history.commitNumberOf(before.channel, before.file.fileNumber, before.offset);
    return {
      ...head,
      comparedWith: { timestamp: beforeCommit === 0 ? null : String(log.history.timestampOf(Math.abs(beforeCommit))), fileNumber: String(before.file.fileNumber), offset: before.offset },
      members,
    };
  } catch (error) {
    if (isAppError(error) && error.code.startsWith('FORMAT_')) return { ...head, comparedWith: null, members: null };
    throw error;
  }
}
