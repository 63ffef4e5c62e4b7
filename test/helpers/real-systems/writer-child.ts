/**
 * A separate writer process for follow tests: commits `count` stores to an existing storage,
 * each adding new objects and storing some existing ones again, with a pause between commits.
 * Prints `committed <n> <first new id>` after each commit.
 * Usage: writer-child.ts <dir> <count> <pauseMs>
 */
import { StorageWriter } from '../../../src/writer/storage-writer.js';
import { reflectiveMembers } from '../../../src/writer/type-definitions.js';

const [dir = '', countText = '10', pauseText = '20'] = process.argv.slice(2);
const writer = await StorageWriter.open(dir, { fileMaximumSize: 16 * 1024 });
const note = writer.defineType(
  'follow.Note',
  reflectiveMembers('follow.Note', [
    { name: 'text', type: 'java.lang.String' },
    { name: 'previous', type: 'follow.Note' },
    { name: 'serial', type: 'int' },
  ]),
);
const text = writer.dictionary.require('java.lang.String');
let previous: bigint | null = null;
for (let i = 0; i < Number(countText); i++) {
  const store = writer.beginStore();
  const first = writer.newObjectId();
  let last = first;
  for (let k = 0; k < 20; k++) {
    const noteId = k === 0 ? first : writer.newObjectId();
    const textId = writer.newObjectId();
    store.add(text, textId, [`note ${i}.${k} ${'x'.repeat(k * 7)}`]);
    store.add(note, noteId, [textId, previous, i * 100 + k]);
    previous = noteId;
    last = noteId;
  }
  // Store the first note of this commit again (a newer version of an object in the same store).
  store.add(note, first, [null, last, -i]);
  writer.store(store);
  process.stdout.write(`committed ${i} ${first}\n`);
  await new Promise((r) => setTimeout(r, Number(pauseText)));
}
writer.close();
