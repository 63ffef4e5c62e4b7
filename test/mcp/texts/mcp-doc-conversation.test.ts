import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { mcpInProcess, type McpInProcess } from '../../helpers/serving/mcp-in-process.js';

/**
 * docs/mcp.md's example conversation, replayed in this process against the storage it was made
 * on (demo/graph is the graph corpus): every line the page shows is in the tool's answer, in the
 * order shown (lines marked "…" are left out on the page). It guards the texts of the tools the
 * conversation calls (issue 48: the tests compared the structured content only, so a changed
 * or missing line of text went unnoticed), and keeps the page true.
 */

interface Step {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly lines: readonly string[];
}

function conversation(): Step[] {
  const page = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'mcp.md'), 'utf8');
  const section = page.slice(page.indexOf('## An example conversation'));
  const block = /```text\n([\s\S]*?)```/.exec(section)![1]!;
  const steps: { tool: string; args: Record<string, unknown>; lines: string[] }[] = [];
  for (const line of block.split('\n')) {
    const call = /^→ (\w+) (\{.*\})$/.exec(line);
    if (call !== null) steps.push({ tool: call[1]!, args: JSON.parse(call[2]!) as Record<string, unknown>, lines: [] });
    else if (line.trim() !== '' && !line.includes('…')) steps.at(-1)!.lines.push(line);
  }
  return steps;
}

let tools: McpInProcess;
beforeAll(async () => {
  tools = await mcpInProcess({ default: join(CONFORMANCE_DIR, 'storages', 'graph') });
}, 60_000);
afterAll(() => tools?.close());

describe("docs/mcp.md's example conversation", () => {
  const steps = conversation();
  it('has the calls the page describes', () => {
    expect(steps.map((s) => s.tool)).toEqual(['storage_overview', 'describe_object', 'describe_object', 'describe_object', 'referrers', 'paths_from_root', 'object_versions', 'analyze_storage']);
  });

  it.each(steps.map((s, i) => [i + 1, s.tool, s] as const))('step %i, %s: every line shown is in the answer, in order', async (_n, tool, step) => {
    const result = await tools.call(tool, step.args);
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const answer = (result.content[0] as { text: string }).text.split('\n');
    // The page names the storage by the directory it was served from.
    const expected = step.lines.map((l) => l.replace(/^storage default \(MicroStream\): .*$/, 'storage default (MicroStream): '));
    let at = 0;
    for (const line of expected) {
      const found = answer.findIndex((a, i) => i >= at && (line.endsWith(': ') ? a.startsWith(line) : a === line));
      expect(found, `${tool}: "${line}" after line ${at} of\n${answer.join('\n')}`).toBeGreaterThanOrEqual(at);
      at = found + 1;
    }
  });
});
