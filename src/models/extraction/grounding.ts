// Grounding: every value a model gives is looked for in the document's own words, so each one
// either points at the place on the page it was read from or is flagged as not found there.
// Numbers and amounts are compared as numbers (whatever their separators), dates as dates, text
// as its letters and digits with a tolerance for OCR noise (a misread character or two).
import { findDates } from '../../pipeline/entities/dates.js';
import { type DocumentHints, documentHints } from '../../pipeline/entities/recognize.js';
import { NUMBER_SOURCE, parseNumber } from '../../pipeline/entities/numbers.js';
import { fold } from '../../pipeline/entities/normalize.js';
import type { Evidence, TextLine } from '../../pipeline/entities/text.js';
import { unionBox } from '../../pipeline/layout/geometry.js';
import type { BBox } from '../../pipeline/canonical/model.js';
import { similarityAtLeast } from '../../lib/edit-distance.js';

export interface Grounded {
  evidence: Evidence;
  /** How closely the words match the value: 1 exactly, less for an OCR-noisy match. */
  score: number;
}

interface Token {
  /** Folded letters and digits. */
  text: string;
  line: TextLine;
  start: number;
  end: number;
}

interface PageIndex {
  text: string;
  /** Where each token starts in `text`, and its end as the last entry. */
  starts: number[];
  byFirst: Map<string, number[]>;
  bySecond: Map<string, number[]>;
}

function listAt(map: Map<string, number[]>, key: string): number[] {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  return list;
}

/** Two ascending lists of token numbers as one, each number once. */
function inOrder(a: number[], b: number[]): number[] {
  if (!b.length) return a;
  if (!a.length) return b;
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const next = j >= b.length || (i < a.length && a[i]! <= b[j]!) ? a[i++]! : b[j++]!;
    if (out[out.length - 1] !== next) out.push(next);
  }
  return out;
}

interface Located {
  value: number | string;
  line: TextLine;
  start: number;
  end: number;
}

/** Below this similarity a text is not the value. */
export const FUZZY_FLOOR = 0.85;
/** Values shorter than this must match exactly (a fuzzy "12" matches too much). */
const FUZZY_MIN_LENGTH = 5;

const NUMBER_RE = new RegExp(NUMBER_SOURCE, 'g');
// OCR's usual digit misreads, fixed only between digits so words keep their letters.
const DIGIT_LOOKALIKES = /(?<=\d[.,]?)[Oo](?=[\d.,]|$)|(?<=\d[.,]?)[lI|](?=[\d.,]|$)|(?<=\d)S(?=\d)/g;
const LOOKALIKE: Record<string, string> = { O: '0', o: '0', l: '1', I: '1', '|': '1', S: '5' };

const round = (b: BBox): BBox => b.map((v) => Math.round(v * 100) / 100) as BBox;

function evidenceOf(parts: { line: TextLine; start: number; end: number }[]): Evidence {
  const boxes: BBox[] = [];
  for (const p of parts) for (const w of p.line.words) if (w.end > p.start && w.start < p.end) boxes.push(w.bbox);
  return { page: parts[0]!.line.page, bbox: round(unionBox(boxes.length ? boxes : parts.map((p) => p.line.bbox))), text: parts.map((p) => p.line.text.slice(p.start, p.end)).join(' ') };
}

/** How far apart two pieces of evidence are vertically: their centres on the same page, else a page apart. */
function rowDistance(a: Evidence, b: Evidence): number {
  if (a.page !== b.page) return 1e6 * (1 + Math.abs(a.page - b.page));
  return Math.abs((a.bbox[1] + a.bbox[3]) / 2 - (b.bbox[1] + b.bbox[3]) / 2);
}

// A letter OCR reads for a digit, counted as that digit where it stands next to one ("0O08").
const FOLDED_LOOKALIKES = /(?<=\d)[olisb]|[olisb](?=\d)/g;
const FOLDED_DIGIT: Record<string, string> = { o: '0', l: '1', i: '1', s: '5', b: '8' };

/** The digits of folded text, look-alike letters beside digits read as digits: "inv0o08" → "0008". */
const digitsOf = (folded: string) => folded.replace(FOLDED_LOOKALIKES, (c) => FOLDED_DIGIT[c] ?? c).replace(/\D+/g, '');

/** Letters and digits only, folded: "INV-0042 / A" → "inv0042a". */
export const squashed = (s: string) => fold(s).replace(/[^\p{L}\p{N}]+/gu, '');

/** The document's words indexed once per document for every value to be grounded. */
export class Grounder {
  private readonly tokensByPage = new Map<number, Token[]>();
  /** Each page's tokens written one after another and where each starts, and its tokens by their first and second letters. */
  private readonly indexByPage = new Map<number, PageIndex>();
  private numbers: Located[] | null = null;
  private dates: Located[] | null = null;

  /** `hints`: the document's proven and guessed date order (the embedded extractor's own). */
  constructor(
    private readonly lines: TextLine[],
    readonly hints: Pick<DocumentHints, 'dateOrder' | 'dateOrderGuess'> = documentHints(lines),
  ) {
    for (const line of lines) {
      const own = this.tokensByPage.get(line.page) ?? [];
      this.tokensByPage.set(line.page, own);
      const { text, map } = line.folded;
      for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) {
        const start = map[m.index!] ?? m.index!;
        const last = map[m.index! + m[0].length - 1] ?? m.index! + m[0].length - 1;
        own.push({ text: m[0], line, start, end: last + 1 });
      }
    }
  }

  /**
   * Where `value` is printed; `page` (the model's own word on it) is preferred among equal matches,
   * and so, with `near` (a line item's other cell), is the match closest to that row: an item's
   * quantity "1" is the one on its own row, not the first "1" of the table.
   */
  ground(value: unknown, type: string, page: number | null = null, near: Evidence | null = null): Grounded | null {
    let best: Grounded | null = null;
    let bestRank = -1;
    let bestDistance = Infinity;
    for (const c of this.matches(value, type)) {
      const rank = c.score + (page !== null && c.evidence.page === page ? 0.05 : 0);
      const distance = near ? rowDistance(c.evidence, near) : 0;
      // With a row to be near, matches as good as each other (within a little OCR noise) are told apart by their distance to it.
      if (near ? rank > bestRank + 0.02 || (rank >= bestRank - 0.02 && distance < bestDistance) : rank > bestRank) {
        best = c;
        bestRank = Math.max(rank, bestRank);
        bestDistance = distance;
      }
    }
    return best;
  }

  /** Every place `value` is printed, each with how closely the words match it. */
  matches(value: unknown, type: string): Grounded[] {
    if (value === null || value === undefined || typeof value === 'boolean') return [];
    const candidates: Grounded[] = [];
    if (typeof value === 'number') candidates.push(...this.numberHits(value));
    else {
      const text = String(value);
      if (type === 'date' || /^\d{4}-\d{2}-\d{2}$/.test(text)) candidates.push(...this.dateHits(text));
      if (!candidates.length) candidates.push(...this.textHits(text));
      if (!candidates.length && /^[-+(]?[\d\s.,']+\)?$/.test(text.trim())) {
        const n = parseNumber(text);
        if (n !== null) candidates.push(...this.numberHits(n));
      }
    }
    return candidates;
  }

  private numberHits(target: number): Grounded[] {
    this.numbers ??= this.lines.flatMap((line) => {
      const text = line.text.replace(DIGIT_LOOKALIKES, (c) => LOOKALIKE[c] ?? c);
      const out: Located[] = [];
      for (const m of text.matchAll(NUMBER_RE)) {
        const n = parseNumber(m[0]);
        if (n !== null) out.push({ value: n, line, start: m.index!, end: m.index! + m[0].length });
      }
      return out;
    });
    // Within half a cent; a sign lost to parentheses or a trailing minus still counts, a little less.
    return this.numbers
      .filter((n) => Math.abs(Math.abs(n.value as number) - Math.abs(target)) <= 0.005)
      .map((n) => ({ evidence: evidenceOf([n]), score: Math.sign(n.value as number) === Math.sign(target) ? 1 : 0.95 }));
  }

  // A date whose day/month order is a guess shows both readings; the caller holds either below
  // the floor (orderGuessed), so a model's reading of it is found but never passes unchecked.
  private dateHits(iso: string): Grounded[] {
    this.dates ??= this.lines.flatMap((line) =>
      findDates(line.text, this.hints.dateOrder, this.hints.dateOrderGuess).flatMap((d) => [d.value, ...(d.otherOrder ? [d.otherOrder] : [])].map((value) => ({ value, line, start: d.start, end: d.end }))),
    );
    return this.dates.filter((d) => d.value === iso).map((d) => ({ evidence: evidenceOf([d]), score: 1 }));
  }

  private textHits(text: string): Grounded[] {
    const target = squashed(text);
    if (!target) return [];
    const fuzzy = target.length >= FUZZY_MIN_LENGTH;
    // OCR noise blurs letters and turns digits into look-alike letters, but a different digit is a
    // different value: "INV-0009" is not "INV-0008", nor "INV-00081".
    const digits = digitsOf(target);
    const out: Grounded[] = [];
    for (const [page, tokens] of this.tokensByPage) {
      // An exact match's window is not searched again from inside it.
      let skipTo = 0;
      const { text: pageText, starts, byFirst, bySecond } = this.indexOf(page, tokens);
      // A window must start like the value (its first or second character), or be a suffix of
      // a token the value starts inside of ("Inv#1234" against "1234" is not the value).
      const candidates = inOrder(byFirst.get(target[0]!) ?? [], fuzzy ? (bySecond.get(target[1]!) ?? []) : []);
      for (let c = 0; c < candidates.length; c++) {
        const i = candidates[c]!;
        if (i < skipTo) continue;
        // The tokens from the i-th on, as many as reach the value's length.
        let j = i + 1;
        while (j < tokens.length && starts[j]! - starts[i]! < target.length) j++;
        const joined = pageText.slice(starts[i], starts[j]);
        const score = joined === target ? 1 : fuzzy ? similarityAtLeast(joined, target, FUZZY_FLOOR) : 0;
        if (score < FUZZY_FLOOR) continue;
        if (score < 1 && digits && digitsOf(joined) !== digits) continue;
        out.push({ evidence: evidenceOf(this.parts(tokens.slice(i, j))), score: Math.round(score * 1000) / 1000 });
        if (score === 1) skipTo = j;
      }
    }
    return out;
  }

  private indexOf(page: number, tokens: Token[]): PageIndex {
    let index = this.indexByPage.get(page);
    if (!index) {
      index = { text: tokens.map((t) => t.text).join(''), starts: [0], byFirst: new Map(), bySecond: new Map() };
      tokens.forEach((t, i) => {
        index!.starts.push(index!.starts[i]! + t.text.length);
        listAt(index!.byFirst, t.text[0]!).push(i);
        if (t.text.length > 1) listAt(index!.bySecond, t.text[1]!).push(i);
      });
      this.indexByPage.set(page, index);
    }
    return index;
  }

  /** Tokens of a window as one character range per line. */
  private parts(window: Token[]): { line: TextLine; start: number; end: number }[] {
    const parts: { line: TextLine; start: number; end: number }[] = [];
    for (const t of window) {
      const last = parts[parts.length - 1];
      if (last && last.line === t.line) last.end = t.end;
      else parts.push({ line: t.line, start: t.start, end: t.end });
    }
    return parts;
  }
}
