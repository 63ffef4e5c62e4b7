import { cpSync, mkdtempSync, realpathSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSourceOpener } from '../../../src/mcp/check-sources.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { mcpClient, textOf, type McpClient } from '../../helpers/serving/mcp-client.js';
import { graphsBuilt, registeredStorage, type RegisteredStorage } from '../../helpers/serving/registered-storage.js';

/**
 * Answers never say where the server keeps a storage (issue 40, item 11): on a damaged copy (the
 * end of a data file cut off), `storage_overview`, `check_storage` and /api/v1/storage name the
 * storage by its directory's name and its files relative to it, and so do `object_versions`,
 * `analyze_storage` and their routes; no absolute path of this machine appears in the text or the
 * structured content.
 */

let work: string;
let dir: string;
let registered: RegisteredStorage;
let mcp: McpClient;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'si-no-paths-'));
  dir = join(work, 'shop-storage');
  cpSync(join(CONFORMANCE_DIR, 'storages', 'graph'), dir, { recursive: true });
  truncateSync(join(dir, 'channel_1', 'channel_1_16.dat'), 3000);
  registered = await registeredStorage(dir);
  await graphsBuilt(registered.registry);
  mcp = await mcpClient(registered.registry, { checkSource: checkSourceOpener([{ name: undefined, directory: dir }], {}, 'default') });
});

afterAll(async () => {
  await mcp?.close();
  await registered?.close();
  rmSync(work, { recursive: true, force: true });
});

const call = async (name: string, args: Record<string, unknown> = {}) => mcp.call(name, args);

/** Every way this machine's path to the storage could be written. */
function machinePaths(): string[] {
  return [...new Set([work, realpathSync(work), tmpdir(), realpathSync(tmpdir())])];
}

describe('answers about a damaged storage', () => {
  it('storage_overview names the storage by its name and the damaged file relative to it', async () => {
    const result = await call('storage_overview');
    const whole = JSON.stringify(result);
    for (const path of machinePaths()) expect(whole).not.toContain(path);
    expect(textOf(result)).toMatch(/^storage default \(MicroStream\): shop-storage$/m);
    expect(textOf(result)).toMatch(/^ {2}channel_1\/channel_1_16\.dat @2983: /m);
    const info = (result.structuredContent as { storage: { directory: string; graph: { problems: { file: string; offset: number }[] } } }).storage;
    expect(info.directory).toBe(basename(dir));
    expect(info.graph.problems.map((p) => [p.file, p.offset])).toEqual([['channel_1/channel_1_16.dat', 2983]]);
    // The same as /api/v1/storage says.
    expect(JSON.stringify(await mcp.api.get(undefined, '/storage', {}, false))).not.toContain(work);
  });

  it('check_storage names the damaged files relative to the storage', async () => {
    const result = await call('check_storage');
    const whole = JSON.stringify(result);
    for (const path of machinePaths()) expect(whole).not.toContain(path);
    const report = result.structuredContent as { directory: string; problems: { code: string; file?: string; offset?: number }[] };
    expect(report.directory).toBe('shop-storage');
    expect(report.problems.map((p) => [p.code, p.file, p.offset])).toEqual([
      ['DATA_FILE_TOO_SHORT', 'channel_1/channel_1_16.dat', 3000],
      ['RECORD_PAST_COMMITTED_END', 'channel_1/channel_1_16.dat', 2983],
      ['MISSING_REFERENCE_TARGET', 'channel_0/channel_0_18.dat', 376],
    ]);
    expect(textOf(result)).toContain('[refuses-start] DATA_FILE_TOO_SHORT channel_1/channel_1_16.dat @3000: ');
  });

  it('object_versions and analyze_storage name data files relative to the storage, as their API routes do', async () => {
    const root = ((await mcp.api.get(undefined, '/storage', {}, false)) as { rootObjectId: string }).rootObjectId;
    const versions = await call('object_versions', { objectId: root });
    const analysis = await call('analyze_storage');
    for (const result of [versions, analysis]) {
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      const whole = JSON.stringify(result);
      for (const path of machinePaths()) expect(whole).not.toContain(path);
    }
    expect(textOf(versions)).toMatch(/ bytes in channel_\d+\/channel_\d+_\d+\.dat @\d+/);
    const files = (analysis.structuredContent as { files: { file: string }[] }).files.map((f) => f.file);
    expect(files).toContain('channel_1/channel_1_16.dat');
    for (const route of [`/objects/${root}/versions`, '/analysis']) {
      const answer = JSON.stringify(await mcp.api.get(undefined, route, {}, false));
      for (const path of machinePaths()) expect(answer, route).not.toContain(path);
      expect(answer, route).toMatch(/"file":"channel_\d+\/channel_\d+_\d+\.dat"/);
    }
  });
});
