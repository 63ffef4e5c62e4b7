import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { StorageRegistry } from '../../../registry/storage-registry.js';
import { API_PREFIX } from '../../../api-contract/schemas.js';

/**
 * `GET /api/v1/storages`: every storage the server was asked to serve, the ones that could not be
 * opened too (with why), so that a client (the viewer's storage switch) can show them all.
 */

const StorageEntry = Type.Object({
  name: Type.String(),
  state: Type.Union([Type.Literal('served'), Type.Literal('failed')]),
  instance: Type.Union([Type.String(), Type.Null()], { description: 'the path before its Java-compatible routes (`microstream/shop`); null when not served there' }),
  reason: Type.Optional(Type.String({ description: 'why a failed storage is not served' })),
});

export const StorageList = Type.Object({ storages: Type.Array(StorageEntry) });

export function registerStoragesRoute(scope: FastifyInstance, registry: StorageRegistry): void {
  scope.get(
    `${API_PREFIX}/storages`,
    { schema: { tags: ['storage'], summary: 'Every storage asked for: served ones and those that could not be opened, with the reason', response: { 200: StorageList } } },
    async () => {
      const single = registry.size === 1;
      return {
        storages: [
          ...registry.all().map((context) => {
            const instance = context.served === undefined ? null : single ? context.served.instance : `${context.served.instance}/${context.name}`;
            return { name: context.name, state: 'served' as const, instance };
          }),
          ...registry.unavailable().map((storage) => ({
            name: storage.name,
            state: 'failed' as const,
            instance: storage.instance === undefined ? null : `${storage.instance}/${storage.name}`,
            reason: storage.reason,
          })),
        ],
      };
    },
  );
}
