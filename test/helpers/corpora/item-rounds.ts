import { cpSync } from 'node:fs';
import type { StoreBuilder } from '../../../src/writer/store-builder.js';
import { StorageWriter } from '../../../src/writer/storage-writer.js';
import { reflectiveMembers } from '../../../src/writer/type-definitions.js';

/** Object ids of the items and their names, in the order they were stored. */
export interface ItemIds {
  readonly items: readonly bigint[];
  readonly names: readonly bigint[];
}

/**
 * A one-channel storage at `a` of `count` `shop.Item`s (a name and a quantity), stored in four
 * commits, and its copy at `b` that goes on with one more commit made by `storeAgain`: the pair
 * the prefix-comparison tests open, the copy as the first storage's continuation. `filler` pads
 * the names so that records fall across file and block borders at places of the test's choosing.
 */
export async function writeItemRounds(
  a: string,
  b: string,
  options: { readonly fileSize: number; readonly count: number; readonly filler: (i: number) => string },
  storeAgain: (writer: StorageWriter, store: StoreBuilder, ids: ItemIds) => void,
): Promise<ItemIds> {
  const writer = StorageWriter.create(a, { channelCount: 1, fileMaximumSize: options.fileSize });
  const item = writer.defineType('shop.Item', reflectiveMembers('shop.Item', [{ name: 'name', type: 'java.lang.String' }, { name: 'qty', type: 'int' }]));
  const string = writer.dictionary.require('java.lang.String');
  const items: bigint[] = [];
  const names: bigint[] = [];
  for (let round = 0; round < 4; round++) {
    const store = writer.beginStore();
    for (let i = 0; i < options.count / 4; i++) {
      const [itemId, nameId] = [writer.newObjectId(), writer.newObjectId()];
      store.add(item, itemId, [nameId, i]);
      store.add(string, nameId, [`item ${round} ${i} ${options.filler(i)}`]);
      items.push(itemId);
      names.push(nameId);
    }
    writer.store(store);
  }
  writer.close();
  cpSync(a, b, { recursive: true });
  const ids = { items, names };
  const again = await StorageWriter.open(b, { fileMaximumSize: options.fileSize });
  const store = again.beginStore();
  storeAgain(again, store, ids);
  again.store(store);
  again.close();
  return ids;
}
