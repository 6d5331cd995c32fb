// Line items of an unruled item table, read from positions: a header row names the columns
// (Description / Qty / Price / Amount and their synonyms, in the vocabulary's languages), and
// every word of the rows below goes to the column whose header it sits under. A row with amounts
// is an item; a row with only description text continues the item above (multi-line
// descriptions); subtotal, tax and carried-forward rows are skipped and the final total ends the
// table.
import type { BBox } from '../canonical/model.js';
import { escapeRegExp } from '../entities/normalize.js';
import { type PlacedWord, type TextLine, locate } from '../entities/text.js';
import { type CoerceContext, coerce } from './coerce.js';
import type { FieldSpec } from './schema-fields.js';
import type { Item } from './tables.js';
import { CARRIED_ROW } from './vocabulary.js';

interface Row {
  page: number;
  bbox: BBox;
  words: { word: PlacedWord; line: TextLine }[];
}

interface Anchor {
  field: FieldSpec;
  x0: number;
  x1: number;
}

// The final total ends the table; subtotals, tax and discount rows between items are skipped.
const FINAL_TOTAL = /(?:^|\s)(?:grand\s)?(?:total|totaal|totale|gesamt(?:betrag|summe)?|summe|montant total|total ttc|importe total|te betalen|amount due|balance due|endbetrag|rechnungsbetrag|razem)\b/i;
const SKIPPED = /^(?:sub\s?-?total|subtotaal|zwischensumme|sous[\s-]total|total ht|total net|net total|netto|exclusief|excl|tax|vat|gst|btw|mwst|ust|tva|iva|discount|korting|rabatt|remise|shipping|versand|frais|credits?|rounding)\b/i;

// A unit of measure printed after a quantity: a short word without digits ("kg", "Units", "Stk.", "h").
const UNIT_WORD = /^\p{L}[\p{L}.²³]{0,9}$/u;

const centre = (b: BBox) => (b[1] + b[3]) / 2;
const heightOf = (b: BBox) => Math.max(1, b[3] - b[1]);
const r3 = (v: number) => Math.round(Math.max(0, Math.min(1, v)) * 1000) / 1000;

/** Lines on the same page and visual row, merged: layout may cut one printed row into pieces. */
function rowsOf(lines: TextLine[]): Row[] {
  const sorted = [...lines].sort((a, b) => a.page - b.page || centre(a.bbox) - centre(b.bbox) || a.bbox[0] - b.bbox[0]);
  const rows: Row[] = [];
  for (const line of sorted) {
    const last = rows[rows.length - 1];
    const h = Math.min(heightOf(line.bbox), last ? heightOf(last.bbox) : Infinity);
    const overlapsX = last?.words.some((w) => w.word.bbox[0] < line.bbox[2] && line.bbox[0] < w.word.bbox[2]);
    if (last && last.page === line.page && Math.abs(centre(last.bbox) - centre(line.bbox)) < 0.5 * h && !overlapsX) {
      last.words.push(...line.words.map((word) => ({ word, line })));
      last.bbox = [Math.min(last.bbox[0], line.bbox[0]), Math.min(last.bbox[1], line.bbox[1]), Math.max(last.bbox[2], line.bbox[2]), Math.max(last.bbox[3], line.bbox[3])];
    } else rows.push({ page: line.page, bbox: [...line.bbox] as BBox, words: line.words.map((word) => ({ word, line })) });
  }
  for (const r of rows) r.words.sort((a, b) => a.word.bbox[0] - b.word.bbox[0]);
  return rows;
}

const labelRegexes = new WeakMap<FieldSpec, RegExp[]>();

function labelRegexesOf(field: FieldSpec): RegExp[] {
  let res = labelRegexes.get(field);
  if (!res) {
    res = field.labels.map((l) => new RegExp(String.raw`(?<![\p{L}\d])${l.text.split(' ').map(escapeRegExp).join(String.raw`[\s.\-/]*`)}(?![\p{L}\d])`, 'gu'));
    labelRegexes.set(field, res);
  }
  return res;
}

/** The columns a row names, each with the x-range of its label; longest labels claim their place first. */
function headerAnchors(row: Row, columns: FieldSpec[]): Anchor[] {
  const found: { field: FieldSpec; line: TextLine; start: number; end: number; length: number }[] = [];
  for (const line of new Set(row.words.map((w) => w.line))) {
    const { text, map } = line.folded;
    for (const field of columns) {
      for (const re of labelRegexesOf(field)) {
        re.lastIndex = 0;
        for (let m = re.exec(text); m; m = re.exec(text)) {
          if (!m[0].length) {
            re.lastIndex++;
            continue;
          }
          found.push({ field, line, start: map[m.index]!, end: map[m.index + m[0].length - 1]! + 1, length: m[0].length });
        }
      }
    }
  }
  found.sort((a, b) => b.length - a.length);
  const taken: typeof found = [];
  for (const f of found) {
    if (taken.some((t) => t.field === f.field || (t.line === f.line && t.start < f.end && f.start < t.end))) continue;
    taken.push(f);
  }
  return taken.map((t) => {
    const box = locate(t.line, t.start, t.end).bbox;
    return { field: t.field, x0: box[0], x1: box[2] };
  });
}

const isNumeric = (f: FieldSpec) => f.type === 'number' || f.type === 'integer';
const NUMBERISH = /\d/;

/** The anchor a word belongs under: overlap first, then the nearest edge or centre (numbers align right, text left). */
function anchorFor(word: PlacedWord, anchors: Anchor[]): Anchor | null {
  let best: Anchor | null = null;
  let distance = Infinity;
  const cx = (word.bbox[0] + word.bbox[2]) / 2;
  for (const a of anchors) {
    const overlap = Math.min(a.x1, word.bbox[2]) - Math.max(a.x0, word.bbox[0]);
    const d = overlap > 0 ? -overlap : Math.min(Math.abs(cx - (a.x0 + a.x1) / 2), Math.abs(word.bbox[2] - a.x1), Math.abs(word.bbox[0] - a.x0));
    if (d < distance) {
      distance = d;
      best = a;
    }
  }
  return best;
}

/** Items read under a header row; empty when no row of the pages names at least two columns, one of them numeric. */
export function layoutItems(field: FieldSpec, lines: TextLine[], ctx: CoerceContext): Item[] {
  const columns = field.columns ?? [];
  if (columns.length < 2) return [];
  const rows = rowsOf(lines);
  const describing = columns.find((c) => c.type === 'string' && c.concept?.id === 'description') ?? columns.find((c) => c.type === 'string' && !c.concept);
  const items: Item[] = [];
  for (let h = 0; h < rows.length; h++) {
    const header = rows[h]!;
    if (header.words.length > 20 || header.words.filter((w) => /\d[.,]\d/.test(w.word.text)).length > 0) continue;
    const anchors = headerAnchors(header, columns);
    // An item table names what is sold (description or quantity) and an amount; a tax summary ("Rate | Base | Tax") does not.
    if (anchors.length < 2 || !anchors.some((a) => isNumeric(a.field)) || !anchors.some((a) => a.field === describing || a.field.concept?.id === 'quantity')) continue;
    const found = readRows(rows, h, anchors, describing, columns, ctx);
    if (found.length) {
      items.push(...found.items);
      h = found.last;
    }
  }
  return items;
}

function readRows(rows: Row[], h: number, anchors: Anchor[], describing: FieldSpec | undefined, columns: FieldSpec[], ctx: CoerceContext): { items: Item[]; last: number; length: number } {
  const header = rows[h]!;
  const items: Item[] = [];
  const firstNumericX = Math.min(...anchors.filter((a) => isNumeric(a.field)).map((a) => a.x0));
  // Without a description header, the text left of the first amount column describes the item.
  const all = describing && !anchors.some((a) => a.field === describing) ? [...anchors, { field: describing, x0: header.bbox[0], x1: Math.max(header.bbox[0] + 1, firstNumericX - 10) }] : anchors;
  const unit = columns.find((c) => c.concept?.id === 'unit' && c.type === 'string');
  const freeUnit = unit && !anchors.some((a) => a.field === unit) ? unit : undefined;
  let prevBottom = header.bbox[3];
  let last = h;
  for (let r = h + 1; r < rows.length; r++) {
    const row = rows[r]!;
    if (row.page !== header.page) break;
    if (row.bbox[1] - prevBottom > 5 * heightOf(row.bbox)) break;
    const text = row.words.map((w) => w.word.text).join(' ').trim();
    if (FINAL_TOTAL.test(text) && !CARRIED_ROW.test(text)) break;
    if (SKIPPED.test(text) || CARRIED_ROW.test(text)) {
      prevBottom = row.bbox[3];
      continue;
    }
    const parts = new Map<Anchor, { word: PlacedWord; line: TextLine }[]>();
    let unitWord: { word: PlacedWord; line: TextLine } | null = null;
    let previous: Anchor | null = null;
    for (const w of row.words) {
      const a = anchorFor(w.word, all);
      const after = previous;
      previous = a;
      if (!a) continue;
      // "1.00 kg": the unit printed right after the quantity, for a unit column no header names.
      if (freeUnit && after?.field.concept?.id === 'quantity' && parts.get(after)?.length && !unitWord && UNIT_WORD.test(w.word.text) && (a === after || isNumeric(a.field))) {
        unitWord = w;
        continue;
      }
      // Digits under a text column are the item's (a model number); letters under an amount column are not an amount.
      if (isNumeric(a.field) && !NUMBERISH.test(w.word.text) && !/^[€$£¥₹%]|^[A-Z]{3}$/.test(w.word.text)) {
        const text = all.find((x) => x.field === describing);
        if (text && w.word.bbox[0] < firstNumericX) parts.set(text, [...(parts.get(text) ?? []), w]);
        continue;
      }
      parts.set(a, [...(parts.get(a) ?? []), w]);
    }
    const item: Item = {};
    let amounts = 0;
    let money = 0;
    for (const [a, words] of parts) {
      const value = words.map((w) => w.word.text).join(' ');
      const c = coerce(a.field, value, ctx);
      if (!c) continue;
      const first = words[0]!;
      const evidence = words[0]!.line === words[words.length - 1]!.line ? [locate(first.line, first.word.start, words[words.length - 1]!.word.end)] : words.map((w) => locate(w.line, w.word.start, w.word.end));
      item[a.field.key] = { value: c.value, confidence: r3(0.8 * c.fit * Math.min(...words.map((w) => w.word.confidence))), evidence };
      if (isNumeric(a.field)) amounts++;
      if (a.field.concept?.kind === 'money') money++;
    }
    if (unitWord && freeUnit && Object.keys(item).length) item[freeUnit.key] = { value: unitWord.word.text, confidence: r3(0.8 * unitWord.word.confidence), evidence: [locate(unitWord.line, unitWord.word.start, unitWord.word.end)] };
    if (!Object.keys(item).length) continue;
    // A bundle's parts under an item ("Apple Magic Mouse   1") have a quantity but no price: not items of their own.
    if (amounts && !money && anchors.some((a) => a.field.concept?.kind === 'money')) {
      prevBottom = row.bbox[3];
      continue;
    }
    if (!amounts) {
      // A text far below the last item is past the table (notes, footer).
      if (row.bbox[1] - prevBottom > 1.2 * heightOf(row.bbox)) break;
      // Only text: the description of the item above goes on.
      const prev = items[items.length - 1];
      const cell = describing ? item[describing.key] : undefined;
      if (!cell || !describing) break;
      const heading = sectionItem(cell, columns);
      if (heading) {
        items.push(heading);
        prevBottom = row.bbox[3];
        continue;
      }
      if (!prev) continue; // a section heading above the first item
      if (!continueDescription(prev, cell, describing, columns)) continue;
    } else items.push(splitCode(item, describing, columns));
    prevBottom = row.bbox[3];
    last = r;
  }
  return { items, last, length: items.length };
}

// A detail under an item that names what it is ("Serienummer: SDMPP373MPP15", "Note: …"): the
// template's note column holds it where it has one; otherwise it stays part of the description.
const ITEM_NOTE = /^[\p{L}][\p{L}/.\- ]{0,24}:\s*\S/u;
// A heading between groups of items ("--- Food Products ---", "== Services =="): no part of the item above.
// Two marks each side, not -{2,} and so on: .* takes any further ones, and a long run of marks is
// no longer split cubically many ways between the two runs and .*.
const SECTION_HEADING = /^\s*(?:--|==|\*\*).*(?:--|==|\*\*)\s*$/;
// A column for such details, when the template has one ("line_note", "comment").
const NOTE_COLUMN = /(?:^|[\s_])(?:note|notes|comment|comments|remark|remarks|memo)$/i;

// A column for section headings, when the template has one ("sectionheader", "section", "group").
const SECTION_COLUMN = /^(?:section|group|category)(?:[\s_-]?(?:header|heading|title|name))?$/i;

/** A section heading as an item of its own, holding only the template's section column (when it has one). */
export function sectionItem(cell: Item[string], columns: FieldSpec[]): Item | null {
  const text = String(cell.value).trim();
  if (!SECTION_HEADING.test(text)) return null;
  const section = columns.find((c) => c.type === 'string' && SECTION_COLUMN.test(c.key));
  return section ? { [section.key]: { ...cell, value: text } } : null;
}

/**
 * Text alone on a row under an item: a further line of its description, a detail for the
 * template's note column, or a section heading. Returns whether it joined the description.
 */
export function continueDescription(prev: Item, cell: Item[string], describing: FieldSpec, columns: FieldSpec[]): boolean {
  const text = String(cell.value).trim();
  if (SECTION_HEADING.test(text)) return false;
  const note = ITEM_NOTE.test(text) ? columns.find((c) => c.type === 'string' && NOTE_COLUMN.test(c.key.replace(/[A-Z]/g, (m) => ` ${m.toLowerCase()}`))) : undefined;
  if (note && !prev[note.key]) {
    prev[note.key] = { ...cell, value: text };
    return false;
  }
  const before = prev[describing.key];
  prev[describing.key] = before ? { value: `${String(before.value)}\n${String(cell.value)}`, confidence: Math.min(before.confidence, cell.confidence), evidence: [...before.evidence, ...cell.evidence] } : cell;
  return true;
}

/** "[FURN_7777] Office Chair": a bracketed article code before the description goes to the code column, when the template has one. */
function splitCode(item: Item, describing: FieldSpec | undefined, columns: FieldSpec[]): Item {
  const code = columns.find((c) => c.concept?.id === 'item_code' && c.type === 'string');
  const cell = describing ? item[describing.key] : undefined;
  if (!code || !cell || !describing || item[code.key] || typeof cell.value !== 'string') return item;
  const m = /^\[([^\]\s]{2,})\]\s+/.exec(cell.value);
  if (!m) return item;
  return { ...item, [code.key]: { ...cell, value: m[1] }, [describing.key]: { ...cell, value: cell.value.slice(m[0].length) } };
}

// A barcode's human-readable text as Code 39 prints it, between asterisks ("*987123* Olive Oil").
const CODE39 = /^\*([0-9A-Z\-.$/+%]{4,})\*\s+/;
// An article number leading the description ("E103184 Onderhoudsset CA6707/10"): capitals and at least three digits.
// Three digits, not \d{3,}: the class after them takes the rest, and a long run of digits is not
// split between the two in every way (quadratic) when no space follows it.
const LEADING_CODE = /^([A-Z]{0,4}\d{3}[A-Z0-9\-]*)\s+(?=\S)/;
const BARCODE_COLUMN = /(?:barcode|ean|gtin|upc)/i;

/**
 * Codes printed in front of the descriptions, moved to the template's code columns: a barcode
 * between asterisks to its barcode column, and an article number that leads every description of
 * the list (one item's leading number may be its model: all of them must have one) to its code column.
 */
export function splitArticleCodes(items: Item[], columns: FieldSpec[]): Item[] {
  const describing = columns.find((c) => c.concept?.id === 'description' && c.type === 'string');
  if (!describing) return items;
  const barcode = columns.find((c) => c.type === 'string' && BARCODE_COLUMN.test(c.key));
  const code = columns.find((c) => c.concept?.id === 'item_code' && c.type === 'string' && !BARCODE_COLUMN.test(c.key));
  let out = items;
  if (barcode) {
    out = out.map((item) => {
      const cell = item[describing.key];
      const m = cell && typeof cell.value === 'string' && !item[barcode.key] ? CODE39.exec(cell.value) : null;
      return m && cell ? { ...item, [barcode.key]: { ...cell, value: m[1] }, [describing.key]: { ...cell, value: String(cell.value).slice(m[0].length) } } : item;
    });
  }
  const named = out.filter((item) => typeof item[describing.key]?.value === 'string');
  if (code && named.length >= 2 && !out.some((item) => item[code.key]) && named.every((item) => LEADING_CODE.test(String(item[describing.key]!.value)))) {
    out = out.map((item) => {
      const cell = item[describing.key];
      const m = cell ? LEADING_CODE.exec(String(cell.value)) : null;
      return m && cell ? { ...item, [code.key]: { ...cell, value: m[1] }, [describing.key]: { ...cell, value: String(cell.value).slice(m[0].length) } } : item;
    });
  }
  return out;
}
