import type { Static } from 'typebox';
import { describe, expectTypeOf, it } from 'vitest';
import type { CommitDetail, CommitList, DiffAnswer } from '../../../src/api-contract/history-schemas.js';
import type { Analysis, ObjectView, Reference, SearchResult, TypeInfo, Version, Via } from '../../../src/api-contract/schemas.js';
import type * as Viewer from '../../../viewer/src/model/api-v1-types.js';
import type * as History from '../../../viewer/src/model/history-types.js';

/**
 * The viewer's shapes of `/api/v1` answers (viewer/src/model/*-types.ts) against the server's
 * typebox schemas (src/api-contract): every answer the server may send must be a value of the
 * viewer's type, so a field the viewer reads that the server renamed, dropped or retyped fails
 * here. The checks are types: `npm run typecheck` (tsc) fails on a mismatch; vitest only runs them.
 * The viewer does not import the schemas itself (server code stays out of its bundle).
 */

describe('viewer API types against the typebox schemas', () => {
  it('history: commits, a commit, a diff', () => {
    expectTypeOf<Static<typeof CommitList>>().toExtend<History.CommitList>();
    expectTypeOf<Static<typeof CommitDetail>>().toExtend<Omit<History.CommitDetail, 'objects'>>();
    // Member changes are typed `unknown` by the schema (their shapes live in src/diff/member-changes.ts).
    expectTypeOf<Static<typeof CommitDetail>['objects'][number]>().toExtend<Omit<History.CommitObject, 'members'>>();
    expectTypeOf<Static<typeof DiffAnswer>>().toExtend<Omit<History.DiffAnswer, 'typeChanges' | 'objects'>>();
  });

  it('types, objects, versions, analysis, search', () => {
    expectTypeOf<Static<typeof TypeInfo>>().toExtend<Viewer.TypeInfo>();
    expectTypeOf<Static<typeof ObjectView>>().toExtend<Viewer.ObjectView>();
    expectTypeOf<Static<typeof Version>>().toExtend<Omit<Viewer.Version, 'commit'>>();
    expectTypeOf<Static<typeof Reference>>().toExtend<Viewer.Reference>();
    expectTypeOf<Static<typeof Via>>().toExtend<Viewer.Via>();
    expectTypeOf<Static<typeof Analysis>>().toExtend<Viewer.Analysis>();
    expectTypeOf<Static<typeof SearchResult>>().toExtend<Viewer.SearchResult>();
  });
});
