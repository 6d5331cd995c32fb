// Which line breaks of a text file end a line of its own and which only wrap a paragraph. A
// wrapped line runs (nearly) to the width of its paragraph, in running words; a receipt's shop
// name, a "Label: value" line, a row of figures or of aligned columns ends where it ends. The
// layout joins lines into paragraphs by spacing alone, which in a text file is always the same:
// without these breaks a receipt became one paragraph.

/** Columns set apart by a run of spaces (two after a word that ends no sentence, three anywhere). */
const COLUMN_GAP = /\S {3,}\S|[^\s.!?:] {2}\S/;
/** "Label: value" with a label of a few words that starts with a capital or a digit. */
const FIELD = /^[\p{Lu}\p{N}][\p{L}\p{N}.&/()#-]*(?: [\p{L}\p{N}.&/()#-]+){0,2} ?: ?\S/u;
const LIST_START = /^(?:[•◦▪▫●○■□➢►▶✓✔*–—-]|\(?\d{1,3}[.)]|\(?[a-zA-Z][.)])\s+/;
const LOWER = /\p{Ll}/u;
/** A paragraph of running words wraps within the last fifth of its width (by the longest line). */
const WRAP_REACH = 0.8;

interface TextLine {
  indent: number;
  /** Column after the last character. */
  end: number;
  text: string;
}

/** Most of the words hold a digit: a row of figures (amounts, quantities, codes). */
function figures(text: string): boolean {
  const words = text.split(' ').filter(Boolean);
  return words.filter((w) => /\d/.test(w)).length * 2 >= words.length;
}

/** A line of its own kind, never part of a paragraph. */
const structured = (text: string) => COLUMN_GAP.test(text) || figures(text);

/** Whether `next` continues the paragraph `prev` wraps, in a run of lines as wide as `width`. */
function wraps(prev: TextLine, next: TextLine, width: number): boolean {
  if (structured(prev.text) || structured(next.text) || FIELD.test(next.text) || prev.text.endsWith(':')) return false;
  // A line indented further starts a paragraph, unless it continues a list item under its text.
  const listIndent = LIST_START.exec(prev.text)?.[0].length;
  if (next.indent > prev.indent && next.indent !== prev.indent + (listIndent ?? -1)) return false;
  if (/[-\u00ad]$/.test(prev.text) && /^\p{L}/u.test(next.text)) return true;
  // A line that ends on "&" or "+" ("HOME MASTER HARDWARE &") has the rest of its name below.
  if (/\s[&+]$/.test(prev.text)) return true;
  const firstWord = next.text.split(' ', 1)[0]!.length;
  // Running text in mixed case, wrapped in proportional type before it became text, stops short
  // of its width by a word or two.
  if (LOWER.test(prev.text) || LOWER.test(next.text)) return prev.end + 1 + firstWord > WRAP_REACH * width;
  // Capitals only (a till receipt): the next word must not have fitted on the line, as a wrapping
  // printer would have put it there; and a sentence's end or a line that starts with a figure (a
  // postcode, a quantity) is printed as a line of its own.
  return prev.end + 1 + firstWord > width && !/[.!?]$/.test(prev.text) && !/^\p{N}/u.test(next.text);
}

/**
 * Indexes of the lines (tabs already expanded) that start a block of their own: each line after
 * another that it does not wrap. Blank lines separate paragraphs by their spacing already.
 */
export function ownLines(lines: readonly string[]): Set<number> {
  const starts = new Set<number>();
  let run: { index: number; line: TextLine }[] = [];
  const close = () => {
    const width = Math.max(0, ...run.map((r) => r.line.end));
    for (let i = 1; i < run.length; i++) if (!wraps(run[i - 1]!.line, run[i]!.line, width)) starts.add(run[i]!.index);
    run = [];
  };
  lines.forEach((raw, index) => {
    const text = raw.trim();
    if (text === '') return close();
    const indent = raw.length - raw.trimStart().length;
    run.push({ index, line: { indent, end: indent + text.length, text } });
  });
  close();
  return starts;
}
