// How alike two texts are by their edit distance (Levenshtein): 1 for the same text, 0 for nothing
// in common, as a share of the longer one's length.

export function similarity(a: string, b: string): number {
  if (a === b) return 1;
  const longest = Math.max(a.length, b.length);
  if (!longest) return 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return 1 - prev[b.length]! / longest;
}

/** Rows of similarityAtLeast's edit distance, reused: grounding tries thousands of windows a value. */
let rowsOf = { prev: new Int32Array(64), row: new Int32Array(64) };
/** Letters counted by their code modulo 64 (a lower bound on the edit distance either way). */
const tally = new Int16Array(64);

/**
 * How many edits at least turn `a` into `b`: characters one has more of than the other can only
 * be edited away (counted in 64 buckets of character codes, which can only lower the count).
 */
function editsAtLeast(a: string, b: string): number {
  tally.fill(0);
  for (let i = 0; i < a.length; i++) tally[a.charCodeAt(i) & 63]!++;
  for (let i = 0; i < b.length; i++) tally[b.charCodeAt(i) & 63]!--;
  let more = 0;
  let fewer = 0;
  for (let c = 0; c < 64; c++) {
    const d = tally[c]!;
    if (d > 0) more += d;
    else fewer -= d;
  }
  return Math.max(more, fewer);
}

/**
 * similarity(a, b) when it reaches `floor`, else 0. Only edit distances the floor allows are
 * computed (a band of that width around the diagonal, given up once a row leaves it), after a
 * count of letters rules out most texts at once: grounding a value in a long document tries
 * thousands of windows, and almost none of them match.
 */
export function similarityAtLeast(a: string, b: string, floor: number): number {
  if (a === b) return 1;
  const longest = Math.max(a.length, b.length);
  if (!longest) return 1;
  // A distance above this leaves the similarity under the floor.
  const band = Math.ceil((1 - floor) * longest);
  if (Math.abs(a.length - b.length) > band || editsAtLeast(a, b) > band) return 0;
  const outside = band + 1;
  const m = b.length;
  if (rowsOf.prev.length <= m) rowsOf = { prev: new Int32Array(2 * (m + 1)), row: new Int32Array(2 * (m + 1)) };
  let { prev, row } = rowsOf;
  for (let j = 0; j <= m; j++) prev[j] = j <= band ? j : outside;
  for (let i = 1; i <= a.length; i++) {
    const lo = Math.max(1, i - band);
    const hi = Math.min(m, i + band);
    row[lo - 1] = lo === 1 && i <= band ? i : outside;
    let least = row[lo - 1]!;
    for (let j = lo; j <= hi; j++) {
      const cell = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      row[j] = cell;
      if (cell < least) least = cell;
    }
    if (hi < m) row[hi + 1] = outside;
    if (least > band) return 0;
    [prev, row] = [row, prev];
  }
  const score = 1 - Math.min(prev[m]!, outside) / longest;
  return score >= floor ? score : 0;
}
