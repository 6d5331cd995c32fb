// How much a run of words looks like the key of a key-value pair. A key ends in ":", is a label
// printed on invoices and receipts in one of the vocabulary's languages, or is a word that forms
// use as a caption ("To", "Sender", "Fax number"); a short phrase without digits may still be
// one, but only a value with digits or a value's shape (date, amount, id) confirms it.
import type { Word } from '../canonical/model.js';
import { fold } from '../entities/normalize.js';
import { COLUMN_CONCEPTS, CONCEPTS } from '../extract/vocabulary.js';

export type Keyness = 'colon' | 'known' | 'plain';

const MAX_KEY_WORDS = 6;
const MAX_KEY_CHARS = 40;

/** Captions common on forms, cover sheets and letters, in the vocabulary's languages. */
const FORM_CAPTIONS = [
  'to', 'from', 'cc', 'bcc', 're', 'subject', 'sender', 'recipient', 'recipients', 'company', 'attention', 'attn', 'date', 'time', 'name', 'title', 'address',
  'city', 'state', 'zip', 'zip code', 'country', 'phone', 'phone no', 'phone number', 'telephone', 'tel', 'fax', 'fax no', 'fax number', 'email', 'e mail',
  'department', 'dept', 'division', 'region', 'signature', 'pages', 'no of pages', 'number of pages', 'reference', 'ref', 'file no', 'account', 'account no',
  'account number', 'contact', 'comments', 'remarks', 'notes', 'message', 'approved by', 'prepared by', 'requested by', 'issued by', 'position', 'brand',
  'quantity', 'code', 'type', 'status', 'period', 'location', 'project', 'program', 'budget', 'cost', 'description',
  'an', 'von', 'betreff', 'datum', 'firma', 'telefon', 'seiten', 'de', 'objet', 'societe', 'telephone', 'para', 'asunto', 'empresa', 'telefono',
  'aan', 'van', 'onderwerp', 'bedrijf', 'oggetto', 'societa',
];

const KNOWN = new Set([...FORM_CAPTIONS, ...[...CONCEPTS, ...COLUMN_CONCEPTS].flatMap((c) => c.labels)]);

/** foldKey's recent answers: a phrase's text is folded for its keyness and again for its caption test. */
const foldedKeys = new Map<string, string>();

/** Folded, without punctuation: "Invoice No.:" → "invoice no". */
export function foldKey(text: string): string {
  let folded = foldedKeys.get(text);
  if (folded === undefined) {
    folded = fold(text).replace(/[^\p{L}\p{N}#%]+/gu, ' ').trim();
    if (foldedKeys.size >= 4096) foldedKeys.clear();
    foldedKeys.set(text, folded);
  }
  return folded;
}

export const wordsText = (ws: readonly Word[]) => ws.map((w) => w.text).join(' ');

/** Without a final colon and the spaces before it ("Date :" → "Date"); the regex runs only when there is one. */
export const dropColon = (text: string) => (text.endsWith(':') ? text.replace(/\s*:$/, '') : text);

/** Starts with a letter, at most six words and 40 characters, not the end of a sentence. */
export function isLabel(ws: readonly Word[], allowColon = false, raw = wordsText(ws)): boolean {
  const text = allowColon ? dropColon(raw) : raw;
  if (!(ws.length > 0 && ws.length <= MAX_KEY_WORDS && text.length <= MAX_KEY_CHARS && /^[\p{L}#]/u.test(text))) return false;
  // "Invoice No." ends in an abbreviation, not a sentence (the regexes run on text ending in "." only).
  if (text.endsWith('.')) return !/[.!?]$/.test(text.replace(/\b(?:no|nr|n°)\.$/i, 'no'));
  return !text.endsWith('!') && !text.endsWith('?');
}

export const isKnownLabel = (text: string) => KNOWN.has(foldKey(dropColon(text)));

/** How sure it is that these words are a key; null: they are not. `text`: wordsText(ws), when the caller holds it. */
export function keyness(ws: readonly Word[], text = wordsText(ws)): Keyness | null {
  if (text.endsWith(':')) return isLabel(ws, true, text) ? 'colon' : null;
  if (!isLabel(ws, false, text)) return null;
  if (isKnownLabel(text)) return 'known';
  // A label set in bold among regular words (text layers only).
  if (ws.every((w) => w.bold)) return 'known';
  return /\d/.test(text) ? null : 'plain';
}

/**
 * A phrase that reads as a caption although no vocabulary label spells it: it starts or ends
 * with one ("Sender Fax Number", "HOME PHONE", "NAME OF GUEST"). Such a phrase is no value.
 */
export function isCaptionLike(ws: readonly Word[], text = wordsText(ws)): boolean {
  if (!isLabel(ws, true, text) || /\d/.test(text)) return false;
  const folded = foldKey(text).split(' ');
  const last = folded[folded.length - 1]!;
  return KNOWN.has(folded[0]!) || (KNOWN.has(last) && !endsAName(folded)) || text.endsWith(':');
}

/**
 * A caption word that also ends the names of firms: "Lorillard Tobacco Company" is a name,
 * "Company" a caption. (The other languages' words for it, "Firma", "Société", lead a name.)
 */
const NAME_ENDINGS = new Set(['company']);

/** Three words or more that end on such a word, the first no caption word ("Parent Company" stays a caption). */
const endsAName = (folded: readonly string[]) => folded.length >= 3 && NAME_ENDINGS.has(folded[folded.length - 1]!) && !KNOWN.has(folded[0]!);

const DATE = /^(?:\d{1,4}[./-]\s?\d{1,2}[./-]\s?\d{1,4}|\d{1,2}\.?\s+\p{L}{3,}\.?,?\s+\d{2,4}|\p{L}{3,}\.?\s+\d{1,2},?\s+\d{2,4})$/u;
const AMOUNT = /^(?:[A-Z]{3}\s?|[$€£¥₹]\s?)?-?\d{1,3}(?:[ ,.'’]?\d{3})*(?:[.,]\d{1,2})?(?:\s?[$€£¥₹%]|\s?[A-Z]{3})?$/u;
const ID = /^(?=.*\d)[\p{L}\d][\p{L}\d\-/#.]{2,24}$/u;

/** A value's shape that confirms the label before it: a date, an amount or an identifier. */
export const hasValueShape = (text: string) => {
  const t = text.trim();
  return DATE.test(t) || AMOUNT.test(t) || ID.test(t) || /^\(?\d{3}\)?[\s.-]*\d{3}[\s.-]*\d{4}$/.test(t);
};
