/**
 * "Did you mean ...?" for near misses (command words, type names): the candidates closest by edit
 * distance (insertions, deletions, substitutions and swaps of neighbours), if close enough to be a
 * typo of them: at most a third of the longer word, at least one edit.
 */

/** Optimal string alignment distance (Damerau–Levenshtein without repeated edits of a substring). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d = new Uint32Array(rows * cols);
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[(i - 1) * cols + j]! + 1, d[i * cols + j - 1]! + 1, d[(i - 1) * cols + j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[(i - 2) * cols + j - 2]! + 1);
      d[i * cols + j] = best;
    }
  }
  return d[rows * cols - 1]!;
}

/** The candidates nearest to `word` (ignoring case), best first, or none if none is near. */
export function closeMatches(word: string, candidates: Iterable<string>, max = 3): string[] {
  const lower = word.toLowerCase();
  const scored: { candidate: string; distance: number }[] = [];
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    const allowed = Math.max(1, Math.floor(Math.max(word.length, candidate.length) / 3));
    if (distance <= allowed) scored.push({ candidate, distance });
  }
  scored.sort((x, y) => x.distance - y.distance || x.candidate.localeCompare(y.candidate));
  const best = scored[0]?.distance;
  return scored.filter((s) => s.distance === best).slice(0, max).map((s) => s.candidate);
}

/** ` (did you mean serve?)`, ` (did you mean a or b?)`, or ''. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const found = closeMatches(word, candidates);
  if (found.length === 0) return '';
  const list = found.length === 1 ? found[0] : `${found.slice(0, -1).join(', ')} or ${found.at(-1)}`;
  return ` (did you mean ${list}?)`;
}
