import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRUCTURED_BYTES, TEXT_CHARS } from '../../../src/mcp/budget.js';
import { ModelStorage } from '../../graph/model-storage.js';
import { mcpClient, textOf, type McpClient } from '../../helpers/serving/mcp-client.js';
import { registeredStorage, type RegisteredStorage } from '../../helpers/serving/registered-storage.js';

/**
 * The budgets on a storage written to exceed them: a list of long strings (more text than a tool
 * may give), a string larger than the structured-content budget, and more instances than a
 * filtered listing looks at in one call. Each answer stays bounded and says what it left out.
 */

let dir: string;
let registered: RegisteredStorage;
let mcp: McpClient;
const ids: Record<string, string> = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'si-mcp-budget-'));
  const model = ModelStorage.create(join(dir, 'storage'));
  const strings = Array.from({ length: 400 }, (_, i) => model.putString(`${String(i).padStart(4, '0')} ${'long text '.repeat(30)}`));
  const list = model.putList(strings);
  const huge = model.putString('x'.repeat(STRUCTURED_BYTES + 1000));
  const nodes: bigint[] = [];
  for (let i = 0; i < 700; i++) nodes.push(model.putNode({ name: `node-${i}`, weight: i }));
  const root = model.putNode({ name: 'root', children: model.putList(nodes), next: model.putNode({ name: 'holder', children: list, lazy: model.putLazy(huge) }) });
  model.setRoot(root);
  model.commit();
  model.close();
  Object.assign(ids, { list: String(list), huge: String(huge) });
  registered = await registeredStorage(join(dir, 'storage'));
  registered.registry.startAll();
  mcp = await mcpClient(registered.registry);
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  await registered?.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = async (name: string, args: Record<string, unknown>) => mcp.call(name, args);

describe('answers stay within their budgets', () => {
  it('cuts the text of a page past the text budget, the structured content keeps the page', async () => {
    const result = await call('describe_object', { objectId: ids['list'], limit: 200 });
    const text = textOf(result);
    expect(text.length).toBeLessThan(TEXT_CHARS + 500);
    expect(text).toMatch(/truncated: \d+ more lines of text left out/);
    expect(text).toContain('truncated: 200 more elements; next cursor "200"');
    const members = (result.structuredContent as { members: { elements?: unknown[] }[] }).members;
    expect(members.find((m) => m.elements !== undefined)!.elements).toHaveLength(200);
  });

  it('leaves out structured content larger than its budget, and says so', async () => {
    const result = await call('describe_object', { objectId: ids['huge'] });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toBeUndefined();
    const text = textOf(result);
    expect(text.length).toBeLessThan(2000);
    expect(text).toMatch(/structured content of \d+ bytes left out: more than 262144/);
  });

  it('looks at a window of instances per filtered call and gives the cursor to go on', async () => {
    const first = await call('list_instances', { type: 'gen.Node', member: 'weight', equals: '650' });
    expect((first.structuredContent as { matches: unknown[] }).matches).toEqual([]);
    expect(textOf(first)).toMatch(/truncated: \d+ more instances not looked at yet; next cursor "500"/);
    const second = await call('list_instances', { type: 'Node', member: 'weight', equals: '650', cursor: '500' });
    const matches = (second.structuredContent as { matches: { member: { value: unknown } }[] }).matches;
    expect(matches.map((m) => m.member.value)).toEqual([650]);
    const named = await call('list_instances', { type: 'Node', member: 'name', contains: 'NODE-69' });
    expect(textOf(named)).toContain('"node-69"');
    expect((named.structuredContent as { matches: unknown[] }).matches).toHaveLength(1);
    const unknown = await call('list_instances', { type: 'Node', member: 'nope', equals: '1' });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('has no member "nope"');
  });

  it('registers no sql_query tool without an SQL engine', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name)).not.toContain('sql_query');
    // Nor check_storage without a way to open the storage anew.
    expect(tools.map((t) => t.name)).not.toContain('check_storage');
  });
});
