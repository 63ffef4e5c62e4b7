import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ModelStorage } from '../../graph/model-storage.js';

/**
 * A storage whose texts are what an attacker would store to fool a viewer or a spreadsheet:
 * bidirectional controls and other invisible format characters (display spoofing), and texts a
 * spreadsheet runs as formulas (CSV injection). `gen.Node`s named by these texts, the first one
 * the root, the others in its `children` list.
 */

/** The root's name: shown raw, U+202E turns it into "invoiceexe.pdf". */
export const SPOOFED_NAME = 'invoice\u202Efdp.exe';

export const INVISIBLE_TEXTS = [
  'zero\u200Bwidth\u200Cnon\u200Djoiner\uFEFFbom',
  'iso\u2066late\u2067d\u2068x\u2069 marks\u200E\u200F embed\u202A\u202B\u202C\u202D',
  'line\u2028paragraph\u2029end',
] as const;

/** Texts a spreadsheet would run as formulas, and a plain negative number it reads as one. */
export const FORMULA_TEXTS = ['=HYPERLINK("http://example.invalid/?x","click")', '+1+2', '-2+3', '@SUM(A1:A2)', '\tTAB', '\rCR', '-12.5'] as const;

/** Writes the storage into a new temporary directory and answers that directory. */
export function writeHostileTexts(): string {
  const directory = path.join(mkdtempSync(path.join(tmpdir(), 'storage-inspector-hostile-')), 'storage');
  const model = ModelStorage.create(directory, 1);
  const children = [...INVISIBLE_TEXTS, ...FORMULA_TEXTS].map((name, i) => model.putNode({ name, weight: i + 1 }));
  const root = model.putNode({ name: SPOOFED_NAME, children: model.putList(children), weight: 0 });
  model.setRoot(root);
  model.commit();
  model.close();
  return directory;
}
