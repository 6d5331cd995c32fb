// The issuer's address on a receipt or letterhead: the contiguous lines under the name at the top
// of the first page, from the first line that reads as an address (a number, a street word) to the
// line with the postal code (and the city after it when the code ends its line), stopping at the
// first line of contact or registration details. Registration numbers and branch names printed
// between the name and the address are not part of it.
import { repairLookalikes } from '../entities/lookalikes.js';
import type { LocatedEntity } from '../entities/recognize.js';
import { type TextLine, locate, rangeConfidence } from '../entities/text.js';
import type { Candidate, ScalarContext } from './scalars.js';
import type { FieldSpec } from './schema-fields.js';

// Street and building words in the languages of the vocabulary (and Malay, common on receipts).
const ADDRESS_WORD =
  /\b(?:jalan|jln|lorong|lrg|taman|tmn|lot|unit|level|lvl|tingkat|floor|flr|block|blk|bangunan|wisma|menara|plaza|mall|kompleks|complex|road|rd|street|st|avenue|ave|lane|drive|boulevard|blvd|bandar|kampung|kg|persiaran|lebuh|lebuhraya|seksyen|section|sek|pusat|kawasan|perindustrian|industrial|suite|building|tower|centre|center|p\.?\s?o\.?\s?box|strasse|straße|str|weg|platz|gasse|allee|rue|chemin|calle|avenida|via|piazza|viale|straat|laan|plein)\b/i;

// Lines that end an address: contact, registration and document details.
const STOP =
  /^[TF]\s?:|\b(?:tel|telephone|phone|fax|h\/?p|hp|e-?mail|www|http|gst|sst|vat|reg|roc|co\.?\s?no|company\s(?:no|reg)|invoice|receipt|tax|date|cashier|table|doc(?:ument)?\s?no|bill|order|counter|terminal|ust|mwst|tva|iva|btw|siret|siren)\b|@|\d{2}[/.-]\d{2}[/.-]\d{2,4}/i;

// A line that holds only a registration number ("(JM0292487-D)", "JM0725755-U", "(CO. NO. 113825-W)").
const REGISTRATION = /^\(?\s*(?:(?:co|company|business|br|roc)\.?\s*(?:reg\.?\s*)?(?:no|#)\.?\s*[:.]?\s*)?\(?[A-Z]{0,4}\d{4,}[-\s]?[A-Z]?\)?\s*\)?$/i;

// A line holding a phone number alone ("03-60571377", "016-5498845."): contact details, not address.
const PHONE_ALONE = /^\(?\+?\d[\d\s()]*[-\s][\d\s()-]*\d\.?$/;
const isPhoneAlone = (text: string) => PHONE_ALONE.test(text) && (text.match(/\d/g)?.length ?? 0) >= 8;

// A prefix before the address on its first line: "COMPANY NO:" or a parenthesised name or number.
const PREFIX = /^(?:[\p{L}\s.]{2,30}:\s*|\((?:[^()]|\([^()]*\))*\)\s*|\d{6,}\s*(?:\([^()]*\)\s*)?)(?=\S|$)/u;

// How an address's first line starts: a number, or a street or building word.
const START = new RegExp(String.raw`^(?:no\.?\s?:?\s?\d|\d|[A-Z]{1,2}\d|${ADDRESS_WORD.source.replace(/^\\b/, '')})`, 'i');

const r3 = (v: number) => Math.round(Math.max(0, Math.min(1, v)) * 1000) / 1000;

/**
 * OCR reads the commas between address parts as points ("TAMAN SRI PUTRA. 81200", "JALAN KENARI
 * 5. BANDAR"): a point after a whole word of four letters or more, or after a whole number, with
 * more address after it, is a comma. Abbreviations ("JLN.", "NO.", "P.T.") keep their points.
 */
const ocrSeparators = (text: string) => text.replace(/(?<![\p{L}\d.])(\p{L}{4,}|\d+)\.(?= \S)/gu, '$1,');

/**
 * Whether a line goes on after a postal code with a comma and more text ("56000 KUALA LUMPUR,
 * MALAYSIA"): the first comma after the first four digits in a row has text after it. Found by
 * position: the regex /\d{4,}[^,]*,\s*\S/ said the same but split a long run of digits cubically.
 */
export function namesPlaceAfterCode(text: string): boolean {
  const code = /\d{4}/.exec(text);
  if (!code) return false;
  const comma = text.indexOf(',', code.index + 4);
  return comma >= 0 && text.trimEnd().length > comma + 1;
}

const looksLikeAddress = (text: string) => /\d/.test(text) || ADDRESS_WORD.test(text);

/** The address block under the issuer's name, when the first page starts with one. */
export function addressBlockCandidates(spec: FieldSpec, ctx: ScalarContext, vendorLine: TextLine | null): Candidate[] {
  if (spec.concept?.id !== 'address' || spec.type !== 'string') return [];
  const firstPage = ctx.pages[0]?.page_number;
  const lines = (ctx.linesByPage.get(firstPage ?? -1) ?? []).slice().sort((a, b) => a.order - b.order);
  if (!lines.length) return [];
  const postal = new Set<TextLine>(ctx.entities.filter((e: LocatedEntity) => e.type === 'postal_code' && e.page === firstPage).map((e) => e.line));
  // The block starts after the name: the vendor's line, or the first line when it has no digits.
  let from = vendorLine ? lines.indexOf(vendorLine) + 1 : !/\d/.test(lines[0]!.text) ? 1 : 0;
  if (from < 0 || from > 6) return [];
  const parts: TextLine[] = [];
  let closed = false;
  let placeLine = false;
  for (let i = from; i < lines.length && i < from + 10 && parts.length < 6; i++) {
    const line = lines[i]!;
    const text = line.text.trim();
    if (!parts.length) {
      if (REGISTRATION.test(text) || /^\(.*\)$/.test(text)) continue;
      const rest = text.replace(PREFIX, '');
      // "GST NO: 000342237184 (ID:5033)": the label says what the number is, even where the prefix is cut.
      if ((STOP.test(rest) || STOP.test(text)) && !ADDRESS_WORD.test(rest)) continue;
      if (REGISTRATION.test(rest.replace(/\s*\([^()]*\)\s*$/, '')) || isPhoneAlone(rest)) continue;
      // A branch or shop name before the street: skipped, as long as the street comes soon.
      if (!START.test(rest) && !(/\d/.test(rest) && ADDRESS_WORD.test(rest))) continue;
      parts.push(line);
    } else {
      if (STOP.test(text) || REGISTRATION.test(text) || isPhoneAlone(text)) break;
      // After the postal code, one short line of place names may follow (the state or country).
      if (closed && (!placeLine || /\d/.test(text) || text.split(/\s+/).length > 3 || parts.length > 6)) break;
      const prev = parts[parts.length - 1]!;
      if (line.bbox[1] - prev.bbox[3] > 2 * Math.max(1, prev.bbox[3] - prev.bbox[1])) break;
      parts.push(line);
    }
    // After the postal code the address ends, unless the code ends its line (the city follows) or the line runs on with a comma.
    if (closed) break;
    if (postal.has(line) && !/\d{4,}[,.]?\s*$/.test(text) && !/,\s*$/.test(text)) {
      closed = true;
      // "56000 KUALA LUMPUR, MALAYSIA" already names city and country: what follows is something else.
      placeLine = !namesPlaceAfterCode(text);
    }
  }
  if (!parts.length) return [];
  const hasPostal = parts.some((l) => postal.has(l));
  // A lone short line without a postal code is more likely a slogan than an address.
  if (!hasPostal && parts.length < 2 && !ADDRESS_WORD.test(parts[0]!.text)) return [];
  const first = parts[0]!;
  const prefix = PREFIX.exec(first.text)?.[0] ?? '';
  const cut = /^(?:no|lot|unit|level|blk|block)\b/i.test(prefix) ? 0 : prefix.length;
  const joined = [first.text.slice(cut), ...parts.slice(1).map((l) => l.text)].map((t) => t.trim()).join(' ');
  const evidence = [locate(first, cut, first.text.length), ...parts.slice(1).map((l) => locate(l, 0, l.text.length))];
  const ocr = parts.reduce((s, l) => s + rangeConfidence(l, 0, l.text.length), 0) / parts.length;
  const value = ocr < 1 ? repairLookalikes(ocrSeparators(joined)) : joined;
  return [{ value, confidence: r3((hasPostal ? 0.62 : 0.5) * ocr), evidence, source: 'entity', order: first.order }];
}
