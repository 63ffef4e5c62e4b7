import { get } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../security/cli.js';
import { CORPUS } from './chunk-damage.js';

/**
 * `serve` on an EclipseStore 4.2 storage with a rotten byte (the corpus' flip-entity): the damaged
 * chunk is in `/api/v1/storage` with file and offset, the objects whose newest record lies in it
 * are marked in `/api/v1/objects/{oid}`, the Java-compatible routes answer what 4.2 without a
 * checksum setting answered (recorded in the corpus), and `--strict` refuses with 4.2's exception.
 */

const DIR = join(CORPUS, 'damaged', 'crc32c', 'flip-entity');
const IN_STORAGE = join('channel_0', 'channel_0_1.dat');
const FILE = join(DIR, IN_STORAGE);

function fetch(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    }).on('error', reject);
  });
}

/** What 4.2 without a checksum setting answered for the String whose byte rotted. */
function recordedAnswer(): { path: string; status: number; body: string } {
  const line = /^GET (\S+) -> (\d+) (.*)$/m.exec(readFileSync(join(CORPUS, 'expected-damage', 'crc32c.flip-entity.nocfg.txt'), 'utf8'))!;
  return { path: line[1]!, status: Number(line[2]), body: line[3]! };
}

describe('serve on a storage whose chunk fails its checksum', () => {
  it('shows the damage, marks the objects in the chunk, and answers the Java routes as 4.2 without a setting does', async () => {
    const serve = spawnCli(['serve', DIR, '--port', '0', '--no-follow', '--quiet']);
    try {
      const port = await serve.port;
      expect(serve.stderr()).toContain(`storage-inspector: damage: ${FILE} at offset 886: CHUNK_CHECKSUM_MISMATCH: `);
      const info = JSON.parse((await fetch(port, '/api/v1/storage')).body) as { damage?: { code: string; file?: string; offset?: number; severity: string; message: string }[] };
      expect(info.damage?.map((d) => [d.code, d.offset, d.severity])).toEqual([['CHUNK_CHECKSUM_MISMATCH', 886, 'refuses-start']]);
      // Named below the storage directory where the API names files so, else as given.
      expect([FILE, IN_STORAGE]).toContain(info.damage?.[0]?.file);
      expect(info.damage?.[0]?.message).toContain('ChunkChecksumV1 mismatch in data file #1 at position 886: expected hash D95343AE, actual hash 2C872202');

      // The object views need the graph index: asked again while it is built (503).
      let view = await fetch(port, '/api/v1/objects/1000000000000000042');
      for (let i = 0; i < 300 && view.status === 503; i++) {
        await new Promise((r) => setTimeout(r, 100));
        view = await fetch(port, '/api/v1/objects/1000000000000000042');
      }
      expect(view.status).toBe(200);
      const rotten = JSON.parse(view.body) as { typeName: string; damage?: { code: string; file: string; offset: number } };
      expect(rotten.typeName).toBe('java.lang.String');
      expect(rotten.damage).toMatchObject({ code: 'CHUNK_CHECKSUM_MISMATCH', file: IN_STORAGE, offset: 886 });
      // An object stored in another chunk is not marked.
      const sound = JSON.parse((await fetch(port, '/api/v1/objects/1000000000000000100')).body) as { objectId: string; damage?: unknown };
      expect(sound.objectId).toBe('1000000000000000100');
      expect(sound.damage).toBeUndefined();

      const recorded = recordedAnswer();
      const answer = await fetch(port, `/store-data${recorded.path}`);
      expect([answer.status, answer.body]).toEqual([recorded.status, recorded.body]);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exit;
    }
  });

  it('--strict refuses it as EclipseStore 4.2 with the writer\'s setting does', async () => {
    const serve = spawnCli(['serve', DIR, '--port', '0', '--strict']);
    const { code } = await serve.exit;
    expect(code).toBe(1);
    expect(serve.stderr()).toContain('StorageExceptionChunkChecksumMismatch: ChunkChecksumV1 mismatch in data file #1 at position 886');
  });
});
