// How a text file's line structure comes through the canonical text. A receipt transcript's
// lines should each stay a line of their own (a shop name, an address line, "TOTAL 9.00"); the
// lines of a paragraph of wrapped prose should be joined into one. Scored on the SROIE receipt
// transcripts and on the prose ground-truth texts of ocr-text (a paragraph there is a run of
// lines between blank lines or before a line indented further, as the pages print it).
import { runCanonical } from '../../src/pipeline/index.js';

/** The lines of `text` (one source line each) that are a whole line of the canonical text. */
export async function linesKept(text: string): Promise<{ kept: number; lines: number }> {
  const canonical = await runCanonical(Buffer.from(text));
  const out = new Set(canonical.text.split('\n').map((l) => l.trim()));
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  return { kept: lines.filter((l) => out.has(l)).length, lines: lines.length };
}

/**
 * Of the line breaks inside the paragraphs of `text`, how many the canonical text joined; of the
 * lines that start a paragraph, how many still start one.
 */
export async function proseJoined(text: string): Promise<{ joined: number; wraps: number; starts: number; paragraphs: number }> {
  const canonical = await runCanonical(Buffer.from(text));
  const paragraphs = canonical.text.split(/\n\s*\n/).map((p) => p.replace(/\s+/g, ' ').trim());
  const rows = text.replace(/\r\n?/g, '\n').split('\n');
  let joined = 0;
  let wraps = 0;
  let starts = 0;
  let count = 0;
  const indent = (l: string) => l.length - l.trimStart().length;
  rows.forEach((row, i) => {
    if (!row.trim()) return;
    const prev = rows[i - 1];
    const startsParagraph = !prev?.trim() || indent(row) > indent(prev);
    const first = row.trim().split(/\s+/)[0]!;
    if (startsParagraph) {
      count++;
      if (paragraphs.some((p) => p.startsWith(row.trim()))) starts++;
      return;
    }
    wraps++;
    // Joined: the end of the previous line and this line's first word sit in one paragraph.
    const tail = prev!.trim().split(/\s+/).pop()!;
    const seam = tail.endsWith('-') ? `${tail}${first}` : `${tail} ${first}`;
    if (paragraphs.some((p) => p.includes(seam))) joined++;
  });
  return { joined, wraps, starts, paragraphs: count };
}
