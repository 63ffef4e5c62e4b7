/**
 * A statement the user asked to run with a click inside the viewer ("Open as table"): the Query
 * view runs it once when it opens with it. A statement that only comes with the address (a link
 * someone sent) is shown in the editor and waits for Run: opening a link must not run SQL with
 * the visitor's credentials.
 */

let requested: string | undefined;

export function requestRun(sql: string): void {
  requested = sql;
}

/** Whether this statement was asked for by a click (the request is used up either way). */
export function takeRunRequest(sql: string): boolean {
  const asked = requested === sql;
  requested = undefined;
  return asked;
}
