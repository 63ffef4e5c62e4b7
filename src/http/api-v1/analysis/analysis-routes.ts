import { Type, type Static } from 'typebox';
import { requireGraph } from './graph-answers.js';
import { analysis } from './reports.js';
import { answers } from '../machinery/problem-details.js';
import type { ApiRoute } from '../machinery/routing.js';
import { Analysis } from '../../../api-contract/schemas.js';

/** `/analysis`: what is garbage, what is missing, where the space goes. */

const AnalysisQuery = Type.Object({
  examples: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, default: 20, description: 'missing ids to list' })),
  referrers: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, default: 5, description: 'referrers to list per missing id' })),
});

export const analysisRoutes: readonly ApiRoute[] = [
  {
    path: '/analysis',
    schema: {
      summary: 'Reachable and unreachable (garbage) objects by type, missing references, superseded and garbage bytes per file',
      tags: ['analysis'],
      querystring: AnalysisQuery,
      response: answers(Analysis),
    },
    handler: (request, _reply, context) =>
      context.storage.consistent(async () => {
        const graph = requireGraph(context);
        const query = request.query as Static<typeof AnalysisQuery>;
        return analysis(context, graph, query.examples ?? 20, query.referrers ?? 5);
      }),
  },
];
