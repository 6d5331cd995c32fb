// One confidence scale for both engines: the share of words with that score that are right.
// Raw scores are not comparable: tesseract's word confidence / 100 and paddle's mean character
// probability mean different things (a raw 0.90 word was right 89 % of the time from tesseract
// but 64 % from paddle, whose scores crowd near 1). Each engine's raw score is mapped through an
// isotonic (monotone) fit of word precision: piecewise-linear between the knots below, flat
// beyond the ends.
//
// Fitted on `bench/ocr.bench.ts --child selection --from 15` (SROIE receipts 15–59 and FUNSD forms
// 15–29, 11.7k tesseract and 7.5k paddle words; a word counts as right when the ground truth
// contains it), i.e. on pages disjoint from the first 12 of each set that the bench scores.
// Refit when a model, the preprocessing or the decoding changes.

type Knots = readonly (readonly [raw: number, precision: number])[];

const TESSERACT: Knots = [
  [0.15, 0.132],
  [0.25, 0.192],
  [0.35, 0.232],
  [0.425, 0.274],
  [0.5, 0.341],
  [0.625, 0.455],
  [0.725, 0.556],
  [0.775, 0.592],
  [0.825, 0.663],
  [0.875, 0.766],
  [0.925, 0.893],
  [0.975, 0.955],
];

const PADDLE: Knots = [
  [0.236, 0.143],
  [0.5, 0.306],
  [0.725, 0.358],
  [0.825, 0.374],
  [0.875, 0.537],
  [0.925, 0.642],
  [0.975, 0.866],
];

function interpolate(knots: Knots, raw: number): number {
  if (!Number.isFinite(raw)) return 0;
  if (raw <= knots[0][0]) return knots[0][1];
  for (let i = 1; i < knots.length; i++) {
    const [x1, y1] = knots[i];
    if (raw <= x1) {
      const [x0, y0] = knots[i - 1];
      return y0 + ((raw - x0) / (x1 - x0)) * (y1 - y0);
    }
  }
  return knots[knots.length - 1][1];
}

/** Maps an engine's raw word score (0–1) onto the shared scale. */
export function calibrated(engine: 'tesseract' | 'paddle', raw: number): number {
  return Math.round(interpolate(engine === 'tesseract' ? TESSERACT : PADDLE, raw) * 1000) / 1000;
}
