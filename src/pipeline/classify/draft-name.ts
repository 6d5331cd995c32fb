// The name a proposed draft gets: the document's kind when it is recognised (invoice, receipt,
// form) and a short heading (the issuer's or the document's own name), as a template name
// (interface.md: ^[a-z0-9][a-z0-9_\-]*$): "receipt-teo_heng_stationery_books", "invoice-coolblue".
// The same document always gets the same name; the raw first line of a document (an address, a
// fax header, a company registration number) is cut down to the words that name it.
import type { CanonicalJson } from '../canonical/serialize.js';
import { CURRENCY_SOURCE } from '../entities/money.js';
import { isPaymentLabel } from '../extract/receipt-total.js';
import { snakeCase } from './snake-case.js';

export type DocumentKind = 'invoice' | 'receipt' | 'form';

/** Text of the document's beginning that its kind is read from. */
const HEAD_CHARS = 3000;
const HEADING_WORDS = 5;
const HEADING_CHARS = 40;

const RECEIPT_WORD = /\b(?:receipts?|kassenbon|quittung|kassabon|ticket de caisse|paragon|recibo|ricevuta)\b/iu;
const INVOICE_WORD = /\b(?:invoices?|faktura|rechnung|factuur|facture|fattura|factura|fatura)\b/iu;
const FORM_WORD = /\b(?:forms?|formular|formulaire|questionnaire|fax transmi(?:ttal|ssion))\b/iu;
// Words that say what a document is, not whose it is ("SIMPLIFIED TAX INVOICE", "Faktura nr").
const KIND_WORDS = /^(?:receipts?|invoices?|faktura|rechnung|factuur|facture|fattura|factura|fatura|forms?|formular|formulaire|tax|simplified|official|fax|transmittal|transmission)$/iu;
const FILLER_WORDS = /^(?:nr|no|number|nummer|numero)$/iu;
// Legal forms that end a company's name: they say nothing about which sender it is.
const LEGAL_FORM = /^(?:sdn|bhd|s\/b|plt|llp|ltd|limited|inc|llc|corp|co|gmbh|ag|sa|sas|sarl|bv|nv|pty|pvt|pte|plc|spa|srl|oy|ab|as|kg|sp|zoo|o\.?o)$/iu;
const AMOUNT = /^[-+]?\p{Sc}?\s?\d[\d\s.,']*$/u;
const RECEIPT_LABEL = /\b(?:(?:cash|sales|official)\s+receipt|receipt\s*(?:no\b|nr\b|number|#))/iu;
// A payment line of a till receipt printed as text: the amount tendered (cash or a card scheme)
// or the change, then an amount ("CASH 100.00", "VISA 48.95", "EDC MASTER RM 41.95").
// Spaces are matched once before and once after the colon and the currency, not by \s* on both
// sides of each: three \s* in a row split a long run of spaces cubically many ways.
const PAYMENT_IN_TEXT = new RegExp(String.raw`\b(?:cash|change|cash change|tendered|cash tendered|change due|credit|visa|master|mastercard|amex)\s*(?::\s*)?(?:${CURRENCY_SOURCE}\s*)?-?\d*[.,]\d{2}\b`, 'iu');

/**
 * The document's kind, when its words say it: a receipt names itself or prints a payment line
 * with an amount (CASH, CHANGE, VISA …); an invoice names itself; a form says so in its title.
 * A receipt is looked for first: till receipts often call themselves a "tax invoice".
 */
export function documentKind(canonical: CanonicalJson, title: string | null): DocumentKind | null {
  const head = canonical.text.slice(0, HEAD_CHARS);
  const pairs = canonical.pages.slice(0, 2).flatMap((p) => p.key_values);
  const paymentLine = pairs.some((kv) => isPaymentLabel(kv.key) && AMOUNT.test(kv.value.trim())) || PAYMENT_IN_TEXT.test(canonical.text);
  // "Receipt" as a title or a label ("RECEIPT NO."), not a word of a sentence ("acknowledge receipt").
  const receipt = (title && RECEIPT_WORD.test(title)) || pairs.some((kv) => RECEIPT_WORD.test(kv.key)) || RECEIPT_LABEL.test(head);
  if (receipt || paymentLine) return 'receipt';
  if (INVOICE_WORD.test(head)) return 'invoice';
  if (title && FORM_WORD.test(title)) return 'form';
  return null;
}

/**
 * The words that name a document in a heading: the first run of two or more words (no figures,
 * up to a bracket, comma, colon or dash), without the kind words and the trailing legal form,
 * at most five words and 40 characters. "TEO HENG STATIONERY & BOOKS (001451637-M) NO. 53, …" →
 * "teo_heng_stationery_books"; "Amazon Web Services Invoice" → "amazon_web_services".
 */
export function headingName(text: string | null): string {
  if (!text) return '';
  const runs: string[][] = [];
  for (const part of text.split(/[()[\]{},;:|•]|\s[-–—]\s|\n/)) {
    let run: string[] = [];
    for (const token of part.split(/\s+/)) {
      if (/\p{L}/u.test(token) && !/\d/.test(token)) run.push(token);
      // "&" and "+" join the words of a name ("STATIONERY & BOOKS", "CASH & CARRY").
      else if (token && !/^[&+]$/.test(token)) {
        if (run.length) runs.push(run);
        run = [];
      }
    }
    if (run.length) runs.push(run);
  }
  const named = (run: string[]) => run.filter((w) => /\p{L}{2}/u.test(w.replace(/[^\p{L}]/gu, '')));
  const run = runs.find((r) => named(r).length >= 2) ?? runs.find((r) => named(r).some((w) => /\p{L}{3}/u.test(w))) ?? [];
  // Words before the kind word name the sender ("Amazon Web Services Invoice"); else those after it.
  const letters = (w: string) => w.replace(/[^\p{L}]/gu, '');
  const kindAt = run.findIndex((w) => KIND_WORDS.test(letters(w)));
  let words = (kindAt > 0 ? run.slice(0, kindAt) : run).filter((w) => !KIND_WORDS.test(letters(w)) && !FILLER_WORDS.test(letters(w)));
  // A lone letter at either end is an initial or a stray mark of the line ("LOEWS P.").
  while (words.length && letters(words[words.length - 1]!).length < 2) words = words.slice(0, -1);
  while (words.length && letters(words[0]!).length < 2) words = words.slice(1);
  while (words.length > 1 && LEGAL_FORM.test(words[words.length - 1]!.replace(/\.$/, '').replace(/\./g, ''))) words = words.slice(0, -1);
  if (words.length === 1 && LEGAL_FORM.test(words[0]!.replace(/\./g, ''))) words = [];
  let name = '';
  for (const word of words.slice(0, HEADING_WORDS)) {
    // "KING'S" is one word: "kings", not "king_s".
    const next = snakeCase([name.replace(/_/g, ' '), word.replace(/['’]/g, '')].join(' ')).replace(/^field_/, '');
    if (next.length > HEADING_CHARS) break;
    name = next;
  }
  return name;
}

/**
 * A template name for a draft: "<kind>-<heading>", either alone, or "document". The heading is
 * the issuer's name (the organisation recognised in the document), or the title's when the title
 * names the issuer too (a fuller name: "GEOVENTURE TASTE OF THE WORLD" for "TASTE OF THE WORLD
 * SDN BHD") or there is no issuer. A title that does not name the issuer is often a slogan or a
 * row of labels ("Dat betaal ik zelf wel.", "Factuuradres Afleveradres").
 */
export function draftName(kind: DocumentKind | null, title: string | null, issuer: string | null, nextLines: string[] = []): string {
  const fromTitle = headingName(title) || headingAfterKindTitle(title, nextLines);
  const fromIssuer = headingName(issuer);
  const issuerWord = fromIssuer.split('_')[0];
  const heading = fromIssuer && !(issuerWord && fromTitle.split('_').includes(issuerWord)) ? fromIssuer : fromTitle;
  return [kind, heading].filter(Boolean).join('-') || 'document';
}

/** Lines after a title read for a heading when the title only says what the document is. */
const LINES_AFTER_TITLE = 2;

/**
 * A title of kind words alone ("TAX INVOICE", "RECEIPT") names no one; the sender's name is then
 * usually the next line ("TAX INVOICE" over "BHPETROL SUBANG AIRPORT"). Only the line or two
 * right after it are read, so an address or a customer further down is never taken.
 */
function headingAfterKindTitle(title: string | null, nextLines: string[]): string {
  if (!title || !title.split(/\s+/).every((w) => KIND_WORDS.test(w.replace(/[^\p{L}]/gu, '')) || !/\p{L}/u.test(w))) return '';
  for (const line of nextLines.slice(0, LINES_AFTER_TITLE)) {
    const name = headingName(line);
    if (name) return name;
  }
  return '';
}
