// Candidates for one field's value, from every kind of evidence the canonical document offers:
// - key-value pairs whose key is one of the field's labels;
// - a label printed in a line, with the value after it on the same line, to its right, or below it;
// - a table cell holding a label, with the value in the next cell or the one below;
// - an entity of the field's type, when no label is found (lower confidence).
// Every candidate carries a confidence in [0, 1] and its evidence (page, bbox, text).
import type { LocatedEntity } from '../entities/recognize.js';
import { type DocPage, type Evidence, type TextLine, locate, rangeConfidence } from '../entities/text.js';
import type { BBox, Table, TableCell } from '../canonical/model.js';
import { legalFormOcrFixed, ocrNameFixed } from '../entities/organisations.js';
import { countryOfTaxLabel } from '../entities/tax-ids.js';
import { type CoerceContext, coerce } from './coerce.js';
import type { LabelMatch } from './labels.js';
import { brandFromDomain, issuerSupport, nameCarriesBrand, nameFromDomain, recipientLines } from './parties.js';
import { type FieldSpec, humanise, labelText, labelTextSimilarity } from './schema-fields.js';
import { CARRIED_ROW, CONCEPTS, EXCLUDING_TAX, INCLUDING_TAX, TOTAL_WORDS } from './vocabulary.js';

export interface Candidate {
  value: unknown;
  confidence: number;
  evidence: Evidence[];
  source: 'key_value' | 'inline' | 'right' | 'below' | 'table' | 'entity';
  /** Reading-order position: ties go to the earlier value. */
  order: number;
}

export interface ScalarContext {
  coerce: CoerceContext;
  pages: DocPage[];
  lines: TextLine[];
  linesByPage: Map<number, TextLine[]>;
  entities: LocatedEntity[];
  tables: boolean;
  /** Planning: look for values around the labels (right, below), not only after them on the line. */
  plan: boolean;
  /** The table cells that may hold a label of one of the fields (see labelCells). */
  labelCells: LabelCell[];
  /** The key-value pairs whose key may be a label of one of the fields, in document order. */
  labelKeyValues: { page: DocPage; kv: DocPage['key_values'][number]; key: string }[];
}

export interface LabelCell {
  page: DocPage;
  table: Table;
  cell: TableCell;
  /** labelText of the cell's text, read once for every field. */
  key: string;
}

/** A short text (longer ones are no label) as label text, when it may be a label of a field. */
function asLabel(text: string, mayBeLabel: (k: string) => boolean): string | null {
  if (text.length > 80) return null;
  const k = labelText(text);
  return mayBeLabel(k) ? k : null;
}

/**
 * The table cells of the pages, in document order, that may hold a label of one of the fields:
 * every field reads only these, not every cell of every table (most hold values).
 */
export function labelCells(pages: DocPage[], mayBeLabel: (k: string) => boolean): LabelCell[] {
  const out: LabelCell[] = [];
  for (const page of pages) {
    for (const table of page.tables) {
      for (const cell of table.cells) {
        const key = asLabel(cell.text, mayBeLabel);
        if (key !== null) out.push({ page, table, cell, key });
      }
    }
  }
  return out;
}

/** The key-value pairs of the pages, in document order, whose key may be a label of one of the fields. */
export function labelKeyValues(pages: DocPage[], mayBeLabel: (k: string) => boolean): ScalarContext['labelKeyValues'] {
  const out: ScalarContext['labelKeyValues'] = [];
  for (const page of pages) {
    const heads = columnHeads(page.key_values);
    for (const kv of page.key_values) {
      if (heads.has(kv.key_bbox.join())) continue;
      const key = asLabel(kv.key, mayBeLabel);
      if (key !== null) out.push({ page, kv, key });
    }
  }
  return out;
}

/**
 * Keys paired with several values stacked under them: the caption of a column ("Total (RM)" over
 * an item table's amounts), which names no single value (as for table cells, tableCandidates).
 */
function columnHeads(kvs: DocPage['key_values']): Set<string> {
  const below = new Map<string, number>();
  for (const kv of kvs) {
    if (kv.value_bbox[1] < kv.key_bbox[3] - 0.25 * (kv.key_bbox[3] - kv.key_bbox[1])) continue;
    const at = kv.key_bbox.join();
    below.set(at, (below.get(at) ?? 0) + 1);
  }
  return new Set([...below].filter(([, n]) => n > 1).map(([at]) => at));
}

// Words after a label that confirm it rather than qualify it ("TOTAL RM INCL. OF GST", "Total due").
const CONFIRMING = /^(?:[A-Z]{3}|rm|incl\.?|inclusive|including|inkl\.?|ttc|due|payable|rounded|amount)\b(?![\s\S]*\b(?:excl|excluding|ex|qty|quantity|savings|discount)\b)/i;

const r3 = (v: number) => Math.round(Math.max(0, Math.min(1, v)) * 1000) / 1000;
// (The number abbreviation must end there: "Northwind" keeps its "No". A minus sign set against
// a digit is the value's own, not punctuation: "Total -450.00" is -450.)
const GAP = /^(?:[\s:#=.–—|)]|-(?!\d))*(?:(?:n[°º]|no|nr|num|number|nummer|numero)(?![a-z])\.?(?:[\s:#=.–|]|-(?!\d))*)?/i;

function afterLabel(line: TextLine, end: number, stopAt: number): { text: string; offset: number } {
  const rest = line.text.slice(end, stopAt);
  const gap = GAP.exec(rest)?.[0].length ?? 0;
  return { text: rest.slice(gap), offset: end + gap };
}

function heightOf(b: BBox): number {
  return Math.max(1, b[3] - b[1]);
}

function labelBox(m: LabelMatch): BBox {
  return locate(m.line, m.start, m.end).bbox;
}

const CURRENCY_ONLY = /^(?:RM|S\$|US\$|[A-Z]{3}|[€$£¥₹]|Fr\.?|kr)$/;

/** The nearest line on the same page to the right of the label, on the same visual row. */
function rightOf(ctx: ScalarContext, m: LabelMatch, box: BBox): TextLine | null {
  const lines = ctx.linesByPage.get(m.line.page) ?? [];
  const reach = Math.max(260, 0.7 * (ctx.pages.find((p) => p.page_number === m.line.page)?.width ?? 0));
  let nearest: TextLine | null = null;
  for (const l of lines) {
    if (l === m.line || !(l.bbox[0] >= box[2] - 2 && l.bbox[0] - box[2] < reach)) continue;
    // A lone ":" between a label and its value is not the value.
    if (!/[\p{L}\p{N}]/u.test(l.text)) continue;
    // Nor is a currency printed in a column of its own ("TOTAL   RM   213.00"): the value is further right.
    if (CURRENCY_ONLY.test(l.text.trim())) continue;
    if (!(Math.min(l.bbox[3], box[3]) - Math.max(l.bbox[1], box[1]) >= 0.35 * Math.min(heightOf(l.bbox), heightOf(box)))) continue;
    if (!nearest || l.bbox[0] < nearest.bbox[0]) nearest = l; // the first of equally near ones, as a stable sort gives
  }
  return nearest;
}

/** The words under the label on the nearest line below it (a header with its value beneath). */
function below(ctx: ScalarContext, m: LabelMatch, box: BBox): { line: TextLine; start: number; end: number } | null {
  const h = heightOf(box);
  const centre = (b: BBox) => (b[1] + b[3]) / 2;
  const lines = (ctx.linesByPage.get(m.line.page) ?? []).filter((l) => l !== m.line && centre(l.bbox) - centre(box) >= 0.6 * h && l.bbox[1] <= box[3] + 2.5 * h);
  lines.sort((a, b) => a.bbox[1] - b.bbox[1]);
  const width = box[2] - box[0];
  const x0 = box[0] - 6;
  const x1 = box[2] + Math.max(30, width * 0.5);
  for (const line of lines) {
    const words = line.words.filter((w) => w.bbox[2] > x0 && w.bbox[0] < x1);
    if (!words.length) continue;
    return { line, start: words[0]!.start, end: words[words.length - 1]!.end };
  }
  return null;
}

function fromLine(spec: FieldSpec, ctx: ScalarContext, line: TextLine, start: number, end: number, base: number, source: Candidate['source']): Candidate | null {
  const text = line.text.slice(start, end);
  const c = coerce(spec, text, ctx.coerce);
  if (!c) return null;
  // A date that another date's label announces ("TBD   Due Date: 2024-04-30", or that line under "Invoice Date:") is that date.
  if (spec.type === 'date' && AFTER_OTHER_EVENT.test(text.slice(0, c.start))) return null;
  const s = start + c.start;
  const e = start + c.end;
  return {
    value: c.value,
    confidence: r3(base * c.fit * rangeConfidence(line, s, e)),
    evidence: [locate(line, s, e)],
    source,
    order: line.order,
  };
}

// Words that make a bare label another thing's: "Order Date", "Due date", "Check-in date", "Sub Total".
const OTHER_EVENT_WORD = String.raw`(?:sub|order|ordered|delivery|delivered|due|ship|shipping|shipped|dispatch|check[\s-]?in|check[\s-]?out|print|printed|expiry|expiration|birth|start|end|payment|booking|bestell|liefer|commande|livraison|echeance|échéance|pedido|entrega|vencimiento)`;
const OTHER_EVENT = new RegExp(String.raw`(?:^|[\s|:])${OTHER_EVENT_WORD}[\s.:-]*$`, 'i');

/** A one-word label ("Date") right after a word naming another event is that event's label. */
const namesOtherEvent = (m: LabelMatch) => OTHER_EVENT.test(m.line.text.slice(Math.max(0, m.start - 24), m.start));

// The words before a date on its line name another date: "Due Date: 2024-04-30", "Ship date 05.02.2024".
const AFTER_OTHER_EVENT = new RegExp(String.raw`(?:^|[\s|:(])${OTHER_EVENT_WORD}(?![\p{L}])[^\d|]{0,24}$`, 'iu');

// A key of another event's word and one more: "Due Date", "Order Date", "Sub Total".
const OTHER_EVENT_KEY = new RegExp(String.raw`(?:^|[\s|:])${OTHER_EVENT_WORD}[\s.:-]*\p{L}+[\s.:#]*$`, 'iu');

/** A key (or a table cell) naming another event, unless it is one of the field's own labels ("Due Date" for the due date). */
const keyOfOtherEvent = (spec: FieldSpec, raw: string, key: string) => OTHER_EVENT_KEY.test(raw) && !spec.labels.some((l) => l.text === key);

/** A date printed under another date's label: never the invoice date by fallback. */
const datedOtherEvent = (e: LocatedEntity) => AFTER_OTHER_EVENT.test(e.line.text.slice(Math.max(0, e.start - 40), e.start));

// Every label the vocabulary knows, as labelText reads it.
const KNOWN_LABELS = new Set(CONCEPTS.flatMap((c) => c.labels.map(labelText)));

/**
 * A caption with nothing after it ("GST No." under an empty "Address" row) is another field's
 * label, not the value of the label above it or to its left.
 */
const isBareLabel = (value: unknown) => typeof value === 'string' && KNOWN_LABELS.has(labelText(value));

/** Words that name a number ("No.", "Nr", "ID", "Reg. No."): a label with one labels an identifier, not a name or a text. */
const NUMBER_WORD = String.raw`(?:no|nr|num|number|nummer|numero|id|reg(?:istration)?(?:\.?\s*(?:no|nr|number))?)`;
/** The rest of a line after a label starts naming a number: "Company" + " No: 123". */
const CONTINUES_INTO_A_NUMBER = new RegExp(String.raw`^[\s.]*${NUMBER_WORD}\b`, 'i');
/** A key that ends naming a number: "Company Reg. No.", "Customer ID", "Order #". */
const ENDS_NAMING_A_NUMBER = new RegExp(String.raw`\b${NUMBER_WORD}\.?\s*[:#]?\s*$|#\s*:?\s*$`, 'i');

// Words naming an identifier or a count right after an amount's label: "Service tax #", "VAT/TIN",
// "Tax Reg. No.", "VAT ID", "Tax registration", "Total Quantity(s)", "Total Items": a registration
// number or a count follows, never an amount.
const ID_WORD = String.raw`(?:#|(?:${NUMBER_WORD}|ident\w*|regd|registration|tin|gstin|vatin|uid|qty|quantity|quantities|items?|pcs|pieces|count|anzahl|menge)(?![\p{L}\d]))`;
const CONTINUES_INTO_AN_ID = new RegExp(String.raw`^[\s.]*(?:/\s*)?${ID_WORD}`, 'iu');
/** A key or cell naming an identifier ("VAT/TIN", "Service tax #", "Tax ID"): it holds no amount. */
const NAMES_AN_ID = new RegExp(String.raw`(?:^|[\s/(.])${ID_WORD}`, 'iu');
const isAmount = (spec: FieldSpec) => spec.concept?.kind === 'money';

/**
 * A field of free text (a name, an address, a description), where a number labelled as such is
 * never the value. A field whose own name names a number ("po_number", "member_id") holds one.
 */
const isFreeText = (spec: FieldSpec) =>
  spec.type === 'string' && !spec.concept?.kind.match(/id|currency|percent/) && !spec.format && !spec.enum && !ENDS_NAMING_A_NUMBER.test(humanise(spec.key));

/** A national tax label ("P.IVA", "NIP") names the country an unprefixed number is read for first. */
function withLabelCountry(ctx: ScalarContext, label: string): ScalarContext {
  const country = countryOfTaxLabel(label);
  return country ? { ...ctx, coerce: { ...ctx.coerce, country } } : ctx;
}

// A total word and a qualifier, perhaps a rate, right before a tax word: "Total inkl. MWST",
// "Total exkl. 8.1% MWST", "Summe zzgl. MwSt". The tax word says what the total includes or leaves
// out; the row is the total's or the subtotal's, never the tax amount's. (After an amount the same
// words state the tax: "Total 1'621.50 inkl. MWST 121.50".)
const QUALIFIED_TOTAL = new RegExp(
  String.raw`(?:^|[^\p{L}])(?:${TOTAL_WORDS.join('|')})[\s.:]*(?:${[...INCLUDING_TAX, ...EXCLUDING_TAX].map((q) => q.replace(' ', String.raw`\s+`)).join('|')})[\s.:]*(?:\d{1,2}(?:[.,]\d{1,2})?\s?%\s*)?$`,
  'iu',
);
const namesQualifiedTotal = (m: LabelMatch) => QUALIFIED_TOTAL.test(m.line.text.slice(Math.max(0, m.start - 40), m.start));

/** Candidates from labels printed in lines. `stops` are where other labels begin on each line. */
export function labelCandidates(spec: FieldSpec, ctx: ScalarContext, matches: LabelMatch[], stops: Map<TextLine, number[]>): Candidate[] {
  const out: Candidate[] = [];
  const isText = isFreeText(spec);
  for (const m of matches) {
    if (spec.concept?.id === 'tax_amount' && namesQualifiedTotal(m)) continue;
    // "Total carried forward 150.00": a running total between pages, not the document's.
    if (spec.concept?.kind === 'money' && CARRIED_ROW.test(m.line.text.slice(m.start))) continue;
    // "Service tax #:", "VAT/TIN:": the label names a registration number, not an amount.
    if (isAmount(spec) && CONTINUES_INTO_AN_ID.test(m.line.text.slice(m.end))) continue;
    // "Company No:", "Customer Nr.": the label names a number, not the name a free-text field holds.
    if (isText && CONTINUES_INTO_A_NUMBER.test(m.line.text.slice(m.end))) continue;
    const key = labelText(m.line.text.slice(m.start, m.end));
    const lctx = spec.concept?.id === 'tax_id' ? withLabelCountry(ctx, m.line.text.slice(m.start, m.end)) : ctx;
    const push = (c: Candidate) => out.push({ ...c, confidence: r3(unlessVague(spec, key, c.confidence)) });
    // A single generic word inside running text ("greetings from …") is a weak label.
    const sentence = m.line.words.length > 8 && !/^\s*[:#]/.test(m.line.text.slice(m.end)) && !m.line.inTable;
    const single = !m.line.text.slice(m.start, m.end).trim().includes(' ');
    // "Due Date", "Order Date", "Sub Total": another thing's label, whatever this field finds nowhere else.
    if (single && namesOtherEvent(m)) continue;
    const base = (0.55 + 0.4 * m.weight) * (sentence && single ? 0.75 : 1);
    // A header row of a table ("Booking ID | Payment Mode"): the value is under the label, not after it.
    // A label announcing its value with ":" in its own cell ("Titulaire du compte : NETPRESSE") is no header.
    const announced = /^\s*:\s*[\p{L}\p{N}]/u.test(m.line.text.slice(m.end).split(' | ')[0]!);
    const headerRow = m.line.inTable && m.line.text.includes(' | ') && !/\d/.test(m.line.text) && !announced;
    const nextStop = (stops.get(m.line) ?? []).filter((s) => s >= m.end).sort((a, b) => a - b)[0] ?? m.line.text.length;
    const { text, offset } = afterLabel(m.line, m.end, isText ? nextStop : m.line.text.length);
    // A one-word label of a free-text field ("From", "Client") only counts when it announces a value with ":".
    const oneWord = !m.line.text.slice(m.start, m.end).trim().includes(' ');
    if (isText && oneWord && text.trim() && !/^\s*[:#]/.test(m.line.text.slice(m.end)) && !m.line.text.slice(m.end).startsWith(' | ')) continue;
    let same: Candidate | null = null;
    if (text.trim() && !headerRow) {
      // In a table row the value is normally the next cell; the rest of the label's own cell ("Tax 15% on $ 112.90 | $ 16.94") is a weaker reading.
      const cut = text.indexOf(' | ');
      if (cut > 0) {
        const next = text.slice(cut + 3);
        const nextEnd = next.indexOf(' | ');
        const cell = nextEnd >= 0 ? next.slice(0, nextEnd) : next;
        const inCell = fromLine(spec, lctx, m.line, offset, offset + cut, base * 0.9, 'inline');
        const nextCell = fromLine(spec, lctx, m.line, offset + cut + 3, offset + cut + 3 + cell.length, base, 'inline');
        same = [inCell, nextCell].filter((c): c is Candidate => !!c).sort((a, b) => b.confidence - a.confidence)[0] ?? null;
      } else {
        same = fromLine(spec, lctx, m.line, offset, offset + text.length, base, 'inline');
      }
    }
    if (same) {
      push(same);
      continue;
    }
    if (text.trim() && !ctx.plan && !headerRow) continue;
    // Other words after the label on its line ("TOTAL QTY", "Total tax") make the value further away less likely its.
    const qualified = /\p{L}{2}/u.test(text) && !CONFIRMING.test(text.trim()) ? 0.85 : 1;
    const box = labelBox(m);
    const right = rightOf(ctx, m, box);
    if (right) {
      const c = fromLine(spec, lctx, right, 0, right.text.length, (base - 0.05) * qualified, 'right');
      if (c && !isBareLabel(c.value)) push(c);
    }
    if (!ctx.plan) continue;
    const under = below(ctx, m, box);
    if (under) {
      const c = fromLine(spec, lctx, under.line, under.start, under.end, (base - 0.1) * qualified, 'below');
      if (c && !isBareLabel(c.value)) push(c);
    }
  }
  return out;
}

/** Highest confidence of a value found only under a vague label ("Reference" for a payment reference): below the default review floor. */
const VAGUE_CAP = 0.65;

/** The confidence of a value read under `key` (label text), held below the floor when the key is one of the field's vague labels. */
const unlessVague = (spec: FieldSpec, key: string, confidence: number) => (spec.vagueLabels?.includes(key) ? Math.min(VAGUE_CAP, confidence) : confidence);

/** How much of a key (as label text) a label of the field covers (1: the key is exactly a label). */
const keySimilarity = (spec: FieldSpec, key: string) => labelTextSimilarity(spec, key);

export function keyValueCandidates(spec: FieldSpec, ctx: ScalarContext): Candidate[] {
  const out: Candidate[] = [];
  const isText = isFreeText(spec);
  for (const { page, kv, key } of ctx.labelKeyValues) {
    const sim = keySimilarity(spec, key);
    if (sim < 0.6 || keyOfOtherEvent(spec, kv.key, key)) continue;
    if (isText && ENDS_NAMING_A_NUMBER.test(kv.key)) continue;
    if (isAmount(spec) && NAMES_AN_ID.test(kv.key)) continue;
    const c = coerce(spec, kv.value, spec.concept?.id === 'tax_id' ? withLabelCountry(ctx, kv.key).coerce : ctx.coerce);
    if (!c) continue;
    const line = ctx.lines.find((l) => l.page === page.page_number && l.bbox[1] <= kv.value_bbox[3] && l.bbox[3] >= kv.value_bbox[1] && l.text.includes(kv.value.slice(c.start, c.end)));
    const order = line?.order ?? 0;
    const evidence = line
      ? locate(line, line.text.indexOf(kv.value.slice(c.start, c.end)), line.text.indexOf(kv.value.slice(c.start, c.end)) + (c.end - c.start))
      : { page: page.page_number, bbox: kv.value_bbox, text: kv.value.slice(c.start, c.end) };
    out.push({
      value: c.value,
      confidence: r3(unlessVague(spec, key, (0.55 + 0.4 * sim) * c.fit * (0.85 + 0.15 * kv.confidence))),
      evidence: [evidence],
      source: 'key_value',
      order,
    });
  }
  return out;
}

export function tableCandidates(spec: FieldSpec, ctx: ScalarContext): Candidate[] {
  if (!ctx.tables) return [];
  const out: Candidate[] = [];
  for (const { page, table, cell, key } of ctx.labelCells) {
    const sim = keySimilarity(spec, key);
    if (sim < 0.7 || keyOfOtherEvent(spec, cell.text, key) || (isAmount(spec) && NAMES_AN_ID.test(cell.text))) continue;
    // In a header row ("Hotel Details | Check In | Check Out | Rooms" over their values) the next cell is another caption.
    const right = headerRow(table, cell.row) ? undefined : table.cells.find((c) => c.row === cell.row && c.col === cell.col + cell.col_span);
    // A label heading a column of several values (an item table's "Total") names no single value.
    const column = table.cells.filter((c) => c.col === cell.col && c.row > cell.row && c.text.trim());
    const down = column.length > 1 ? undefined : table.cells.find((c) => c.col === cell.col && c.row === cell.row + cell.row_span);
    for (const [target, penalty] of [[right, 0], [down, 0.05]] as const) {
      if (!target || !target.text.trim()) continue;
      const c = coerce(spec, target.text, ctx.coerce);
      if (!c) continue;
      out.push({
        value: c.value,
        confidence: r3(unlessVague(spec, key, (0.55 + 0.38 * sim - penalty) * c.fit)),
        evidence: [{ page: page.page_number, bbox: target.bbox, text: target.text.slice(c.start, c.end) }],
        source: 'table',
        order: ctx.lines.find((l) => l.page === page.page_number && l.bbox[1] >= table.bbox[1] - 1)?.order ?? 0,
      });
      break;
    }
  }
  return out;
}

/** A row of three or more captions without a digit over a row with digits: each heads the values under it. */
function headerRow(table: Table, row: number): boolean {
  const filled = (r: number) => table.cells.filter((c) => c.row === r && c.text.trim());
  const own = filled(row);
  return own.length >= 3 && own.every((c) => !/\d/.test(c.text)) && filled(row + 1).some((c) => /\d/.test(c.text));
}

function entityCandidate(e: LocatedEntity, value: unknown, confidence: number): Candidate {
  return { value, confidence: r3(confidence * e.confidence), evidence: [{ page: e.page, bbox: e.bbox, text: e.text }], source: 'entity', order: e.line.order };
}

/**
 * An organisation name may continue from the line above ("POPULAR BOOK" / "CO. (M) SDN BHD") or
 * onto the next after a trailing "&": short capitalised lines without digits join it.
 */
function organisationCandidate(ctx: ScalarContext, org: LocatedEntity): Candidate {
  const sameRow = nameOnOneRow(org);
  if (sameRow) return sameRow;
  const i = ctx.lines.indexOf(org.line);
  const nameLike = (l: TextLine | undefined) => !!l && l.page === org.line.page && !/\d/.test(l.text) && l.words.length <= 4 && /^[\p{Lu}\s&.,'()-]+$/u.test(l.text) && !TITLE_WORDS.test(l.text);
  const parts: { line: TextLine; start: number; end: number }[] = [{ line: org.line, start: org.start, end: org.end }];
  const before = ctx.lines[i - 1];
  if (org.start === 0 && nameLike(before) && /^(?:C[O0]\.?|COMPANY|\(M\)|&|AND)\s/i.test(org.line.text)) parts.unshift({ line: before!, start: 0, end: before!.text.length });
  const after = ctx.lines[i + 1];
  if (/&$/.test(org.line.text.slice(0, org.end).trim()) && nameLike(after)) parts.push({ line: after!, start: 0, end: after!.text.length });
  const joined = legalFormOcrFixed(parts.map((p) => p.line.text.slice(p.start, p.end)).join(' '));
  const value = parts.some((p) => rangeConfidence(p.line, p.start, p.end) < 1) ? ocrNameFixed(joined) : joined;
  return { value, confidence: r3(0.55 * org.confidence), evidence: parts.map((p) => locate(p.line, p.start, p.end)), source: 'entity', order: parts[0]!.line.order };
}

/**
 * A line that layout merged from two stacked rows ("Coolblue B.V." over "Weena 664") reads the
 * name with the street inside it: the name is the words on the legal form's own row, left to right.
 */
function nameOnOneRow(org: LocatedEntity): Candidate | null {
  const words = org.line.words.filter((w) => w.start >= org.start && w.end <= org.end);
  const suffix = words[words.length - 1];
  if (!suffix || words.length < 3) return null;
  const centre = (b: BBox) => (b[1] + b[3]) / 2;
  const onRow = words.filter((w) => Math.abs(centre(w.bbox) - centre(suffix.bbox)) <= 0.5 * heightOf(suffix.bbox));
  if (onRow.length === words.length || onRow.length < 2) return null;
  onRow.sort((a, b) => a.bbox[0] - b.bbox[0]);
  const bbox = onRow.reduce<BBox>((b, w) => [Math.min(b[0], w.bbox[0]), Math.min(b[1], w.bbox[1]), Math.max(b[2], w.bbox[2]), Math.max(b[3], w.bbox[3])], [...onRow[0]!.bbox] as BBox);
  const value = legalFormOcrFixed(onRow.map((w) => w.text).join(' '));
  const confidence = onRow.reduce((sum, w) => sum + w.confidence, 0) / onRow.length;
  return { value, confidence: r3(0.55 * confidence), evidence: [{ page: org.page, bbox, text: value }], source: 'entity', order: org.line.order };
}

const LEGAL_FORM_LINE = /^(?:SDN\.?\s?[B8]H[D0O]\.?|BHD\.?|BERHAD|GMBH|LTD\.?|LIMITED|B\.V\.|S\.A\.S?\.?|INC\.?|LLC)$/i;

/** A legal form printed on a line of its own under the name ("PASARAYA BORONG PINTAR" / "SDN BHD"). */
function legalFormAlone(ctx: ScalarContext, page: number | undefined, recipient: Set<TextLine>): Candidate | null {
  const top = ctx.lines.filter((l) => l.page === page).slice(0, 8);
  const i = top.findIndex((l, k) => k > 0 && LEGAL_FORM_LINE.test(l.text.trim()) && !recipient.has(l));
  if (i < 1) return null;
  const name = top[i - 1]!;
  const form = top[i]!;
  if (/\d/.test(name.text) || !/\p{L}{3}/u.test(name.text) || TITLE_WORDS.test(name.text)) return null;
  const value = legalFormOcrFixed(`${name.text} ${form.text.trim()}`);
  const confidence = (rangeConfidence(name, 0, name.text.length) + rangeConfidence(form, 0, form.text.length)) / 2;
  return { value, confidence: r3(0.55 * confidence), evidence: [locate(name, 0, name.text.length), locate(form, 0, form.text.length)], source: 'entity', order: name.order };
}

const TITLE_WORDS = /^(?:(?:simplified|full|official|original)\s)?(?:tax\s)?(?:invoice|receipt|rechnung|facture|factura|factuur|fattura|quittung|beleg|recu|recibo|bon|payment receipt|official receipt|copy|kopie|page|seite)\b/i;

/**
 * A heading line as a name: an e-mail address or website that layout ran into it ("Sammy
 * smaystone4@fake.com Maystone") and a document title at its end ("… INVOICE") are not the name.
 */
export function headingName(text: string): string {
  // An e-mail address is matched from the start of its run of non-spaces, through its first "@"
  // and the first "." after the character that follows: the same runs /\S+@\S+\.\S+/ replaced,
  // which split a long run of "@" cubically many ways.
  return text
    .replace(/(?<!\S)\S[^\s@]*@\S[^\s.]*\.\S+|(?:https?:\/\/|www\.)\S+/gi, ' ')
    // (?<!\s): the title's spaces are matched from where their run starts, not from each space (quadratic).
    .replace(/(?<!\s)\s+(?:(?:tax\s)?invoice|receipt|rechnung|facture|factura|factuur|fattura|faktura)\s*$/i, '')
    .replace(/\s+/g, ' ')
    .trim();
}

// A line stating the amount payable, and lines that only look like one.
const TOTAL_LINE = /(?:^|[^\p{L}])(?:grand\s+total|total|amount\s+due|balance\s+due|amount\s+payable|gesamtbetrag|rechnungsbetrag|endbetrag|zu\s+zahlen|totaal|te\s+betalen|montant\s+total|net\s+[àa]\s+payer|importe\s+total|total\s+a\s+pagar|totale|należność|do\s+zapłaty)(?![\p{L}])/iu;
const NOT_TOTAL_LINE = /\b(?:sub\s?-?total|total\s+(?:excl|exkl|zzgl|ohne|net|ht|hors|before|pre)|netto|discount|savings)/i;

/** When no label gives a value: an entity of the right type, by the concept's strategy. */
export function fallbackCandidates(spec: FieldSpec, ctx: ScalarContext): Candidate[] {
  const fb = spec.concept?.fallback;
  const entities = ctx.entities;
  if (!fb) {
    if (spec.format === 'email') return entities.filter((e) => e.type === 'email').slice(0, 1).map((e) => entityCandidate(e, e.value, 0.5));
    if (spec.format === 'uri') return entities.filter((e) => e.type === 'url').slice(0, 1).map((e) => entityCandidate(e, e.value, 0.5));
    return [];
  }
  switch (fb.strategy) {
    case 'dominant_currency': {
      const money = entities.filter((e) => e.type === 'money' && /[^\d\s.,\-\u2212]/.test(e.text));
      const counts = new Map<string, LocatedEntity[]>();
      for (const e of money) {
        const cur = (e.value as { currency: string | null }).currency;
        if (cur) counts.set(cur, [...(counts.get(cur) ?? []), e]);
      }
      const ranked = [...counts.entries()].sort((a, b) => b[1].length - a[1].length);
      if (!ranked.length) return [];
      const [cur, list] = ranked[0]!;
      const share = list.length / money.length;
      // The currency printed with the total ("Total: 123.45 EUR") is the document's, however rarely it is printed.
      const onTotal = list.find((e) => TOTAL_LINE.test(e.line.text) && !NOT_TOTAL_LINE.test(e.line.text));
      if (onTotal) return [entityCandidate(onTotal, cur, fb.confidence * (0.7 + 0.3 * share) + 0.05)];
      return [entityCandidate(list[0]!, cur, fb.confidence * (0.7 + 0.3 * share) * (list.length >= 2 ? 1 : 0.85))];
    }
    case 'largest': {
      const money = entities.filter((e) => e.type === 'money' && (e.value as { amount: number }).amount > 0);
      const explicit = money.filter((e) => /[^\d\s.,\-\u2212]/.test(e.text));
      const pool = explicit.length ? explicit : money;
      const best = pool.sort((a, b) => (b.value as { amount: number }).amount - (a.value as { amount: number }).amount)[0];
      if (!best) return [];
      const amount = (best.value as { amount: number }).amount;
      return [entityCandidate(best, spec.type === 'string' ? String(amount) : amount, fb.confidence)];
    }
    case 'vendor': {
      const firstPage = ctx.pages[0]?.page_number;
      // Names in the recipient's block are the customer's, never the issuer's.
      const recipient = recipientLines(ctx.lines);
      const named = nameFromDomain(ctx.lines, entities, recipient);
      const fromDomain: Candidate[] = named ? [{ value: named.text, confidence: r3(0.72 * rangeConfidence(named, 0, named.text.length)), evidence: [locate(named, 0, named.text.length)], source: 'entity', order: named.order }] : [];
      const alone = legalFormAlone(ctx, firstPage, recipient);
      const found = entities.find((e) => e.type === 'organization' && e.page === firstPage && !recipient.has(e.line));
      // The earlier of the two in reading order: the heading is printed first.
      const org = found && (!alone || found.line.order < alone.order) ? found : undefined;
      const legal: Candidate[] = [...fromDomain];
      if (org) {
        const candidate = organisationCandidate(ctx, org);
        const support = issuerSupport(String(candidate.value), org.line, ctx.pages[0]?.height ?? 0, ctx.lines, entities, recipient);
        legal.push({ ...candidate, confidence: r3(candidate.confidence + support) });
      } else if (alone) legal.push(alone);
      if (legal.length) return legal;
      // A line in lower case only is a note or a name written on the document, not a company's heading.
      const line = ctx.lines.find((l) => l.page === firstPage && /\p{L}{3}/u.test(l.text) && /\p{Lu}/u.test(l.text) && !TITLE_WORDS.test(l.text) && !recipient.has(l));
      if (!line) return [];
      const parts = [line];
      const next = ctx.lines[ctx.lines.indexOf(line) + 1];
      if (/&$/.test(line.text.trim()) && next && next.page === line.page && !/\d/.test(next.text) && next.words.length <= 4) parts.push(next);
      const value = headingName(parts.map((l) => l.text).join(' '));
      if (!value) return [];
      return [{ value, confidence: r3(0.35 * rangeConfidence(line, 0, line.text.length)), evidence: parts.map((l) => locate(l, 0, l.text.length)), source: 'entity', order: line.order }];
    }
    default: {
      const e = entities.find((x) => x.type === fb.entity && !(x.type === 'date' && datedOtherEvent(x)));
      if (!e) return [];
      let value = e.value;
      if (fb.entity === 'date' && spec.type !== 'date' && spec.type !== 'string') return [];
      if (fb.entity === 'percentage' && spec.type === 'string') value = String(value);
      return [entityCandidate(e, value, fb.confidence)];
    }
  }
}

/** Below the default review floor: a value read by the other meaning of a field's name. */
const OTHER_MEANING = 0.55;

/**
 * A numeric field whose name also names an id ("vat": the tax amount or the VAT id) and whose own
 * concept is printed nowhere: the issuer's tax id, when printed as digits alone (a Polish NIP
 * "774-00-01-454"), stands in below the review floor.
 */
export function otherMeaningCandidates(spec: FieldSpec, ctx: ScalarContext): Candidate[] {
  if (spec.otherMeaning?.id !== 'tax_id') return [];
  const recipient = recipientLines(ctx.lines);
  const id = ctx.entities.find((e) => e.type === 'tax_id' && !recipient.has(e.line));
  const digits = id ? String(id.value).replace(/^[A-Z]{2}/, '') : '';
  if (!id || !/^\d{6,15}$/.test(digits)) return [];
  return [entityCandidate(id, Number(digits), OTHER_MEANING)];
}

/**
 * The brand the issuer trades under (parties.ts brandFromDomain): confirmed by the document's own
 * domain (+0.12) and printed again (+0.08), as sure as a heading those two confirm.
 */
export function brandCandidate(ctx: ScalarContext): Candidate | null {
  const brand = brandFromDomain(ctx.lines, ctx.entities, recipientLines(ctx.lines));
  if (!brand || brand.line.page !== ctx.pages[0]?.page_number) return null;
  const confidence = r3((0.55 + 0.12 + 0.08) * rangeConfidence(brand.line, brand.start, brand.end));
  return { value: brand.text, confidence, evidence: [locate(brand.line, brand.start, brand.end)], source: 'entity', order: brand.line.order };
}

/**
 * A brand names the issuer over legal names that do not carry it ("Flipkart" over "Sold By: WS
 * Retail Services Pvt. Ltd."); where one carries it ("Coolblue B.V."), the legal name stays.
 */
export function preferBrand(candidates: Candidate[], brand: Candidate | null): Candidate[] {
  if (!brand) return candidates;
  const carried = candidates.some((c) => typeof c.value === 'string' && nameCarriesBrand(c.value, String(brand.value)));
  return carried ? candidates : [brand];
}

/** Address fallback: the lines that end with the first postal code on the first page. */
export function addressCandidates(spec: FieldSpec, ctx: ScalarContext, vendorLine: TextLine | null): Candidate[] {
  if (spec.concept?.id !== 'address' || spec.type !== 'string') return [];
  const firstPage = ctx.pages[0]?.page_number;
  const postal = ctx.entities.find((e) => e.type === 'postal_code' && e.page === firstPage && (!vendorLine || e.line.order >= vendorLine.order));
  if (!postal) return [];
  const lines = ctx.lines;
  const endIndex = lines.indexOf(postal.line);
  let startIndex = endIndex;
  while (startIndex > 0 && endIndex - startIndex < 3) {
    const prev = lines[startIndex - 1]!;
    if (prev.page !== postal.line.page || prev === vendorLine) break;
    if (/\b(?:tel|fax|phone|gst|vat|reg|co\.?\s?no|invoice|receipt|tax)\b/i.test(prev.text) || /^\(?[A-Z]{0,4}\d{4,}[-\s]?[A-Z]?\)?$/.test(prev.text)) break;
    if (vendorLine && prev.order <= vendorLine.order) break;
    if (Math.abs(prev.bbox[3] - lines[startIndex]!.bbox[1]) > 2.5 * heightOf(prev.bbox)) break;
    startIndex--;
  }
  // The line may continue after the postal code with the city and state ("81100 JOHOR BAHRU, JOHOR.").
  let lastIndex = endIndex;
  const next = lines[endIndex + 1];
  if (next && next.page === postal.line.page && /^[\p{Lu}\s.,]+$/u.test(next.text) && next.text.length < 30 && !/\b(?:TEL|FAX|GST|TAX|INVOICE|RECEIPT|DATE)\b/.test(next.text)) lastIndex++;
  const parts = lines.slice(startIndex, lastIndex + 1);
  const text = parts.map((l) => l.text).join(' ');
  const conf = 0.45 * parts.reduce((s, l) => s + rangeConfidence(l, 0, l.text.length), 0) / parts.length;
  return [{ value: text, confidence: r3(conf), evidence: parts.map((l) => locate(l, 0, l.text.length)), source: 'entity', order: parts[0]!.order }];
}

/** Folded positions where labels start in a line, for cutting free-text values short of the next label. */
export function labelStops(matches: LabelMatch[]): Map<TextLine, number[]> {
  const stops = new Map<TextLine, number[]>();
  for (const m of matches) {
    // Only a label that announces a value ("Tel:", "IBAN: …") ends the text before it.
    if (!/^\s*[:#]/.test(m.line.text.slice(m.end))) continue;
    stops.set(m.line, [...(stops.get(m.line) ?? []), m.start]);
  }
  return stops;
}

