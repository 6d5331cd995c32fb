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

/** The document's words indexed once per document for every value to be grounded. */
export class Grounder {
  private readonly tokensByPage = new Map<number, Token[]>();
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
    for (const tokens of this.tokensByPage.values()) {
      for (let i = 0; i < tokens.length; i++) {
        const first = tokens[i]!.text;
        // A window must start like the value (its first or second character), or be a suffix of
        // a token the value starts inside of ("Inv#1234" against "1234" is not the value).
        if (first[0] !== target[0] && (!fuzzy || first[1] !== target[1])) continue;
        let joined = '';
        let j = i;
        while (j < tokens.length && joined.length < target.length) joined += tokens[j++]!.text;
        const score = joined === target ? 1 : fuzzy ? similarity(joined, target) : 0;
        if (score < FUZZY_FLOOR) continue;
        if (score < 1 && digits && digitsOf(joined) !== digits) continue;
        out.push({ evidence: evidenceOf(this.parts(tokens.slice(i, j))), score: Math.round(score * 1000) / 1000 });
        if (score === 1) i = j - 1;
      }
    }
    return out;
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
