/** `/root` (rest-rendering.md §7): the name is always `ROOT` in 4.1; `0` when no root is stored. */
export function rootJson(rootObjectId: bigint): string {
  return `{"name":"ROOT","objectId":"${rootObjectId}"}`;
}
