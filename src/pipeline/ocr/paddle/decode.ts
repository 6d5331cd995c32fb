// CTC greedy decoding of the recogniser's per-time-step class probabilities: take the best class
// at each step, merge repeats, drop blanks. Each emitted character keeps its time step and
// probability, so words get a confidence (mean probability of their characters, as PaddleOCR
// scores a line) and a horizontal extent inside the line.

export interface DecodedChar {
  char: string;
  step: number;
  prob: number;
}

/**
 * Greedy CTC over one sequence `probs` (T × C, row-major). `allowed`, when given, restricts the
 * arg-max to those classes (the blank is always allowed): with Latin-only languages this keeps
 * the Chinese-trained recogniser from answering a smudge with a CJK character.
 */
export function ctcGreedy(probs: Float32Array, steps: number, classes: number, charset: readonly string[], allowed?: Uint8Array): DecodedChar[] {
  const out: DecodedChar[] = [];
  let prev = -1;
  for (let t = 0; t < steps; t++) {
    const row = t * classes;
    let best = 0;
    let bestP = probs[row];
    for (let c = 1; c < classes; c++) {
      const p = probs[row + c];
      if (p > bestP && (!allowed || allowed[c])) {
        best = c;
        bestP = p;
      }
    }
    if (best !== 0 && best !== prev) out.push({ char: charset[best] ?? '', step: t, prob: bestP });
    prev = best;
  }
  return out;
}

/** Characters a Latin-script page may contain: NFKC-normalises into Latin, Latin-1 and common symbols. */
export function latinMask(charset: readonly string[]): Uint8Array {
  const mask = new Uint8Array(charset.length);
  const extra = new Set([...'€£¥°§©®±×÷–—‘’‚“”„•…¢¤µ¶·¿¡ªº«»']);
  for (let i = 1; i < charset.length; i++) {
    const c = charset[i].normalize('NFKC');
    if (c.length === 0) continue;
    const ok = [...c].every((ch) => {
      const cp = ch.codePointAt(0)!;
      return (cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0x24f) || extra.has(ch);
    });
    if (ok) mask[i] = 1;
  }
  return mask;
}

export interface DecodedWord {
  text: string;
  confidence: number;
  /** Fraction of the line's text width where the word starts and ends, in [0, 1]. */
  from: number;
  to: number;
}

/**
 * Splits decoded characters at spaces into words. Word boundaries sit halfway between the last
 * character of one word and the first of the next (CTC emits a character near its centre); the
 * first word starts at the line's left edge and the last ends at its right edge.
 */
export function splitWords(chars: readonly DecodedChar[], steps: number): DecodedWord[] {
  const groups: DecodedChar[][] = [];
  let cur: DecodedChar[] = [];
  for (const c of chars) {
    if (c.char === ' ') {
      if (cur.length) groups.push(cur);
      cur = [];
    } else {
      cur.push(c);
    }
  }
  if (cur.length) groups.push(cur);
  const words: DecodedWord[] = [];
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i];
    const text = g.map((c) => c.char).join('').normalize('NFKC').trim();
    if (!text) continue;
    const start = i === 0 ? 0 : (groups[i - 1][groups[i - 1].length - 1].step + g[0].step + 1) / 2 / steps;
    const end = i === groups.length - 1 ? 1 : (g[g.length - 1].step + groups[i + 1][0].step + 1) / 2 / steps;
    const confidence = g.reduce((s, c) => s + c.prob, 0) / g.length;
    words.push({ text, confidence, from: Math.max(0, start), to: Math.min(1, end) });
  }
  return words;
}

export interface InkProfile {
  /** Ink pixels per column of the line image. */
  columns: Uint16Array;
  /** Height of the text band (rows holding at least 20 % of the peak row's ink): ≈ x-height to cap height. */
  textHeight: number;
}

/**
 * Ink per column of one line image inside the recogniser's input tensor (3 × 48 × padW, values in
 * [-1, 1]). Ink is whatever sits on the far side of the mid-grey from the background (the median),
 * so light-on-dark lines work too.
 */
export function inkColumns(tensor: Float32Array, offset: number, padW: number, width: number, height = 48): InkProfile {
  const plane = height * padW;
  const g = new Float32Array(height * width);
  let lo = Infinity;
  let hi = -Infinity;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = offset + y * padW + x;
      const v = (tensor[i] + tensor[i + plane] + tensor[i + 2 * plane]) / 3;
      g[y * width + x] = v;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  const mid = (lo + hi) / 2;
  const sorted = Float32Array.from(g).sort();
  const darkInk = sorted[sorted.length >> 1] > mid;
  const isInk = (v: number) => (darkInk ? v < mid : v > mid);
  const rows = new Uint16Array(height);
  if (hi - lo > 0.25) {
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) if (isInk(g[y * width + x])) rows[y]++;
  }
  // The text band: rows holding a fair share of the ink. Stray ascenders of the neighbouring
  // lines that the box clips, and speckle in the margins, stay outside it.
  const peak = rows.reduce((m, v) => Math.max(m, v), 0);
  let top = 0;
  while (top < height && rows[top] < 0.2 * peak) top++;
  let bottom = height - 1;
  while (bottom > top && rows[bottom] < 0.2 * peak) bottom--;
  const columns = new Uint16Array(width);
  if (peak > 0) {
    for (let y = top; y <= bottom; y++) for (let x = 0; x < width; x++) if (isInk(g[y * width + x])) columns[x]++;
  }
  return { columns, textHeight: Math.max(0, bottom - top + 1) };
}

/**
 * The Chinese-trained recogniser often runs words together in condensed Latin print (receipts),
 * though its SPACE class exists. A blank column run between two emitted characters becomes a space
 * when it is clearly wider than the line's letter gaps: at least 0.4 of the text band height and 2×
 * the median gap of the line (monospaced receipts have wide gaps beside narrow glyphs such as
 * "1" or "."); when the model did emit spaces in this line it is trusted more: the gap must be as
 * wide as its narrowest space and 0.6 of the band (so the overhang of a "T" is no word break).
 */
export function restoreSpaces(chars: DecodedChar[], ink: InkProfile, steps: number, padW: number): DecodedChar[] {
  if (chars.length < 2 || ink.textHeight < 6) return chars;
  const colOf = (step: number) => Math.min(ink.columns.length - 1, Math.floor(((step + 0.5) * padW) / steps));
  const widestGap = (x0: number, x1: number) => {
    let run = 0;
    let best = 0;
    for (let x = x0; x <= x1; x++) {
      run = ink.columns[x] === 0 ? run + 1 : 0;
      if (run > best) best = run;
    }
    return best;
  };
  // Gaps between every pair of consecutive characters, and the ones the model marked as spaces.
  const gaps: number[] = [];
  const spaced: number[] = [];
  let prev: DecodedChar | undefined;
  let sawSpace = false;
  for (const c of chars) {
    if (c.char === ' ') {
      sawSpace = true;
      continue;
    }
    if (prev) {
      const g = widestGap(colOf(prev.step), colOf(c.step));
      (sawSpace ? spaced : gaps).push(g);
    }
    prev = c;
    sawSpace = false;
  }
  if (gaps.length === 0) return chars;
  const sorted = [...gaps].sort((a, b) => a - b);
  const median = sorted[(sorted.length - 1) >> 1];
  const minGap = spaced.length ? Math.max(3, Math.min(...spaced), 0.6 * ink.textHeight) : Math.max(3, 0.4 * ink.textHeight, 2 * median);
  const out: DecodedChar[] = [chars[0]];
  for (let i = 1; i < chars.length; i++) {
    const a = chars[i - 1];
    const b = chars[i];
    if (a.char !== ' ' && b.char !== ' ' && widestGap(colOf(a.step), colOf(b.step)) >= minGap) {
      out.push({ char: ' ', step: Math.round((a.step + b.step) / 2), prob: Math.min(a.prob, b.prob) });
    }
    out.push(b);
  }
  return out;
}
