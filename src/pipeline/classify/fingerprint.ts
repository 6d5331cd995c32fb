// A document's fingerprint: what classification compares. Small (a few KB of JSON) so that it
// can be stored per exemplar and per draft:
// - labels: the printed keys of its key-value pairs and its table headers, folded;
// - keywords: its distinct content words;
// - identifiers: tax ids, IBANs, e-mail domains, web domains and phone numbers (an issuer's
//   own identifiers are the strongest evidence that two documents come from the same sender);
// - layout: where blocks of each type sit on the first page, on a coarse grid;
// - shape: counts (words, key-values, tables, headings, list items, pages), orientation, source,
//   and the density of the page: how much of it sits in tables, how much of it is numbers, how
//   many table columns hold numbers, how many amounts, dates and identifiers it prints, how
//   much of it is running sentences.
import type { Entity } from '../entities/recognize.js';
import type { CanonicalJson } from '../canonical/serialize.js';

export interface Shape {
  pages: number;
  words_per_page: number;
  key_values_per_page: number;
  tables_per_page: number;
  table_cells_per_page: number;
  headings_per_page: number;
  list_items_per_page: number;
  /** Page height over width (1.41 for A4 portrait, 0.56 for a 16:9 slide, > 2 for a till receipt). */
  aspect: number;
  /** text_layer, ocr, pptx, plain_text. */
  source: string;
  // Added later: fingerprints stored before them lack these, and a comparison skips what one side lacks.
  /** Share of the words that sit in table cells (0–1): a table report is mostly table. */
  table_word_share?: number;
  /** Share of the tokens that are numbers (0–1). */
  numeric_share?: number;
  /** Columns per table whose body cells are mostly numbers. */
  numeric_columns_per_table?: number;
  /** Amounts (money entities) and dates per page. */
  amounts_per_page?: number;
  dates_per_page?: number;
  /** Share of the words in running sentences (lines of eight or more words, mostly words of
   *  letters, outside tables): a paper or a manual is prose, a table report, a slide or a
   *  receipt hardly any. */
  prose_share?: number;
  /** Distinct identifiers (tax ids, IBANs, own domains, phones) per page: a sender prints its own. */
  identifiers_per_page?: number;
}

/** The measures of a shape that are counts (compared as ratios, or on a log scale). */
export const SHAPE_COUNTS: (keyof Shape)[] = ['pages', 'words_per_page', 'key_values_per_page', 'tables_per_page', 'table_cells_per_page', 'headings_per_page', 'list_items_per_page', 'aspect', 'numeric_columns_per_table', 'amounts_per_page', 'dates_per_page', 'identifiers_per_page'];
/** The measures of a shape that are shares from 0 to 1 (compared by their difference). */
export const SHAPE_SHARES: (keyof Shape)[] = ['table_word_share', 'numeric_share', 'prose_share'];

export interface Fingerprint {
  v: 1;
  format: string | null;
  title: string | null;
  labels: string[];
  keywords: string[];
  identifiers: string[];
  layout: string[];
  shape: Shape;
}

const MAX_LABELS = 120;
const MAX_KEYWORDS = 600;
const GRID_COLS = 4;
const GRID_ROWS = 8;

const STOPWORDS = new Set(
  'the and for with from that this are was were you your our not but have has had will all any can may per its his her their them they she him who what when where which why how than then into onto over under out off via der die das und den dem des ein eine mit von für auf ist les des une pour par sur dans avec est aux'.split(' '),
);

/** Lower case, accents kept, punctuation to spaces, digits dropped: "Invoice No.:" → "invoice no". */
export function foldLabel(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\d]+/gu, ' ')
    .replace(/\b\d+\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 40);
}

export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/\p{L}{3,24}/gu) ?? [];
}

function distinct(values: Iterable<string>, cap: number): string[] {
  const out = new Set<string>();
  for (const v of values) {
    if (!v) continue;
    out.add(v);
    if (out.size >= cap) break;
  }
  return [...out];
}

// Domains that millions of senders share (webmail, documentation examples): a shared one says
// nothing about who sent a document.
const PUBLIC_DOMAINS = new Set(
  'gmail.com googlemail.com yahoo.com yahoo.co.uk yahoo.fr ymail.com hotmail.com hotmail.fr hotmail.co.uk outlook.com live.com msn.com aol.com icloud.com me.com mail.com gmx.de gmx.net gmx.com web.de proton.me protonmail.com yandex.ru mail.ru qq.com 163.com 126.com orange.fr free.fr wanadoo.fr laposte.net libero.it example.com example.org example.net facebook.com twitter.com x.com instagram.com linkedin.com youtube.com google.com'.split(' '),
);

function domainIdentifier(host: string | undefined): string | null {
  if (!host || !host.includes('.') || PUBLIC_DOMAINS.has(host)) return null;
  return `domain:${host}`;
}

function identifierOf(e: Pick<Entity, 'type' | 'text' | 'value'>): string | null {
  const value = typeof e.value === 'string' ? e.value : e.text;
  const compact = value.replace(/[\s.\-]/g, '').toLowerCase();
  switch (e.type) {
    case 'tax_id':
    case 'iban':
      return compact.length >= 6 ? `${e.type}:${compact}` : null;
    case 'email':
      return domainIdentifier(value.toLowerCase().split('@')[1]);
    case 'url':
      return domainIdentifier(value.toLowerCase().replace(/^[a-z]+:\/\//, '').replace(/^www\./, '').split(/[/?#:]/)[0]);
    case 'phone':
      return compact.replace(/\D/g, '').length >= 8 ? `phone:${compact.replace(/\D/g, '').slice(-9)}` : null;
    default:
      return null;
  }
}

const NUMBER = /^[-+(]?[$€£¥%]?\d[\d.,:/'%)-]*$/;
const isNumeric = (text: string) => NUMBER.test(text.trim().replace(/\s+/g, ''));

/** Columns of a table whose body cells (below the header row) are mostly numbers. */
function numericColumns(table: CanonicalJson['pages'][number]['tables'][number]): number {
  const byColumn = new Map<number, { filled: number; numeric: number }>();
  for (const cell of table.cells) {
    if (cell.row === 0 || !cell.text.trim()) continue;
    const c = byColumn.get(cell.col) ?? { filled: 0, numeric: 0 };
    c.filled++;
    if (isNumeric(cell.text)) c.numeric++;
    byColumn.set(cell.col, c);
  }
  return [...byColumn.values()].filter((c) => c.filled >= 2 && c.numeric / c.filled >= 0.6).length;
}

// A line of running text: eight words or more, three quarters of them words of letters (with
// their punctuation). A table row, an address or a total line rarely is one.
const SENTENCE_WORDS = 8;
const LETTER_WORD = /^\p{L}[\p{L}'’-]*[.,;:!?]?$/u;
function isSentence(words: { text: string }[]): boolean {
  return words.length >= SENTENCE_WORDS && words.filter((w) => LETTER_WORD.test(w.text)).length >= 0.75 * words.length;
}

function sourceOf(pages: CanonicalJson['pages']): string {
  const first = pages[0]?.source ?? 'text_layer';
  return first.startsWith('ocr') || first === 'needs_ocr' ? 'ocr' : first;
}

function layoutOf(page: CanonicalJson['pages'][number] | undefined): string[] {
  if (!page || page.width <= 0 || page.height <= 0) return [];
  const cells = new Set<string>();
  for (const b of page.blocks) {
    const cx = (b.bbox[0] + b.bbox[2]) / 2 / page.width;
    const cy = (b.bbox[1] + b.bbox[3]) / 2 / page.height;
    const col = Math.min(GRID_COLS - 1, Math.max(0, Math.floor(cx * GRID_COLS)));
    const row = Math.min(GRID_ROWS - 1, Math.max(0, Math.floor(cy * GRID_ROWS)));
    cells.add(`${b.type[0]}${row}${col}`);
  }
  return [...cells].sort();
}

function titleOf(canonical: CanonicalJson): string | null {
  const blocks = canonical.pages[0]?.blocks ?? [];
  const heading = blocks.find((b) => b.type === 'heading' && /\p{L}{3}/u.test(b.text));
  const first = heading ?? blocks.find((b) => /\p{L}{3}/u.test(b.text));
  const line = first?.text.split('\n')[0]?.trim();
  return line ? line.slice(0, 80) : null;
}

/** "application/pdf" (a job's content type) and "pdf" (the pipeline's format) name one format. */
export function formatName(format: string | null): string | null {
  if (!format) return null;
  const f = format.toLowerCase();
  if (!f.includes('/')) return f;
  if (f.includes('pdf')) return 'pdf';
  if (f.includes('presentation')) return 'pptx';
  if (f.startsWith('text/')) return 'text';
  return f.split('/')[1]?.split(';')[0] ?? f;
}

/** The fingerprint of a canonical document and the entities recognised in it. */
export function fingerprintOf(canonical: CanonicalJson, entities: Pick<Entity, 'type' | 'text' | 'value'>[], format: string | null = null): Fingerprint {
  const pages = canonical.pages;
  const n = Math.max(1, pages.length);
  const labels: string[] = [];
  let words = 0;
  let kv = 0;
  let tables = 0;
  let cells = 0;
  let headings = 0;
  let lists = 0;
  let tableWords = 0;
  let numericColumnCount = 0;
  let proseWords = 0;
  for (const page of pages) {
    for (const pair of page.key_values) labels.push(foldLabel(pair.key));
    for (const table of page.tables) {
      tables++;
      cells += table.cells.length;
      numericColumnCount += numericColumns(table);
      for (const cell of table.cells) {
        if (cell.row === 0) labels.push(foldLabel(cell.text));
        tableWords += cell.text.split(/\s+/).filter(Boolean).length;
      }
    }
    kv += page.key_values.length;
    for (const b of page.blocks) {
      if (b.type === 'heading') headings++;
      if (b.type === 'list_item') lists++;
      for (const line of b.lines) {
        words += line.words.length;
        if (b.type !== 'table' && isSentence(line.words)) proseWords += line.words.length;
      }
    }
  }
  const first = pages[0];
  const tokens = canonical.text.split(/\s+/).filter(Boolean);
  const share = (x: number, of: number) => (of ? Math.round(Math.min(1, x / of) * 100) / 100 : 0);
  const identifiers = distinct(entities.map(identifierOf).filter((x): x is string => !!x), 40);
  const perPage = (type: string) => Math.round((entities.filter((e) => e.type === type).length / n) * 10) / 10;
  return {
    v: 1,
    format: formatName(format),
    title: titleOf(canonical),
    labels: distinct(labels.filter((l) => l.length >= 2), MAX_LABELS),
    keywords: distinct(wordsOf(canonical.text).filter((w) => !STOPWORDS.has(w)), MAX_KEYWORDS),
    identifiers,
    layout: layoutOf(first),
    shape: {
      pages: pages.length,
      words_per_page: Math.round(words / n),
      key_values_per_page: Math.round((kv / n) * 10) / 10,
      tables_per_page: Math.round((tables / n) * 10) / 10,
      table_cells_per_page: Math.round(cells / n),
      headings_per_page: Math.round((headings / n) * 10) / 10,
      list_items_per_page: Math.round((lists / n) * 10) / 10,
      aspect: first && first.width > 0 ? Math.round((first.height / first.width) * 100) / 100 : 1,
      source: sourceOf(pages),
      table_word_share: share(tableWords, words),
      numeric_share: share(tokens.filter(isNumeric).length, tokens.length),
      numeric_columns_per_table: tables ? Math.round((numericColumnCount / tables) * 10) / 10 : 0,
      amounts_per_page: perPage('money'),
      dates_per_page: perPage('date'),
      prose_share: share(proseWords, words),
      identifiers_per_page: Math.round((identifiers.length / n) * 10) / 10,
    },
  };
}
