// Lines of one column → blocks: a new block starts at a vertical gap wider than the column's
// usual leading, a change of font size, weight or face, a list marker, or a first-line indent.
// Each block is then typed: heading, list item or paragraph.
import type { Block, Line } from '../canonical/model.js';
import { height, median, minOf, union } from './geometry.js';
import { headingLevel, type LineStyle, type TextStyle } from './headings.js';
import { joinLines } from './lines.js';

export type { TextStyle } from './headings.js';

export const LIST_MARKER = /^(?:[•◦▪▫●○■□➢►▶✓✔\-–—*]|\(?\d{1,3}[.)]|\(?[a-zA-Z][.)]|\([ivxlc]{1,5}\)|[ivxlc]{1,5}\.)$/;

interface LineInfo extends LineStyle {
  line: Line;
  list: boolean;
  /** Every word in the same face and weight. */
  uniform: boolean;
}

function describe(line: Line): LineInfo {
  const byFont = new Map<string, number>();
  let chars = 0;
  let boldChars = 0;
  for (const w of line.words) {
    chars += w.text.length;
    if (w.bold) boldChars += w.text.length;
    byFont.set(w.font ?? '', (byFont.get(w.font ?? '') ?? 0) + w.text.length);
  }
  const font = [...byFont.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
  const first = line.words[0]?.text ?? '';
  return {
    line,
    size: median(line.words.map((w) => w.fontSize ?? height(w.bbox))),
    bold: boldChars * 2 > chars,
    font,
    list: LIST_MARKER.test(first) && line.words.length > 1,
    uniform: byFont.size === 1 && (boldChars === 0 || boldChars === chars),
  };
}

/** `breaks`: indexes of lines that must start a block (the first line of a new column). */
export function linesToBlocks(lines: readonly Line[], style: TextStyle, breaks: ReadonlySet<number> = new Set()): Block[] {
  if (lines.length === 0) return [];
  const infos = lines.map(describe);
  const gapsBetween = infos.slice(1).map((l, i) => l.line.bbox[1] - infos[i].line.bbox[3]);
  // Loose glyph boxes of consecutive lines may overlap (tight leading), so gaps can be negative;
  // only a jump back up the page by most of a line is a column change, not leading.
  const lineH = median(lines.map((l) => height(l.bbox)));
  // Lower median: with few lines, one paragraph break must not become the "usual" leading.
  const leading = gapsBetween.filter((g) => g > -0.8 * lineH).sort((a, b) => a - b);
  const usualGap = leading.length ? leading[(leading.length - 1) >> 1] : 0;
  const left = minOf(lines.map((l) => l.bbox[0]));
  const groups: LineInfo[][] = [];
  let cur: LineInfo[] = [];
  infos.forEach((info, i) => {
    const prev = cur[cur.length - 1];
    if (prev && (breaks.has(i) || startsBlock(prev, info, gapsBetween[i - 1], usualGap, left, cur[0].list))) {
      groups.push(cur);
      cur = [];
    }
    cur.push(info);
  });
  groups.push(cur);
  return groups.map((g, i) => toBlock(g, groups[i + 1], style));
}

function startsBlock(prev: LineInfo, next: LineInfo, gap: number, usualGap: number, left: number, inList: boolean): boolean {
  const h = Math.min(height(prev.line.bbox), height(next.line.bbox));
  if (gap > usualGap + 0.45 * h) return true;
  if (Math.abs(prev.size - next.size) > 0.12 * Math.max(prev.size, next.size)) return true;
  // Style changes count between uniformly styled lines only: a bold lead-in phrase or an italic
  // word does not end a paragraph.
  if (prev.uniform && next.uniform && (prev.bold !== next.bold || prev.font !== next.font)) return true;
  if (next.list) return true;
  // First-line indent of a new paragraph (list continuation lines are indented too).
  if (!inList && next.line.bbox[0] - left > 1.2 * h && prev.line.bbox[0] - left < 0.5 * h) return true;
  return false;
}

function toBlock(group: LineInfo[], next: LineInfo[] | undefined, style: TextStyle): Block {
  const lines = group.map((g) => g.line);
  const text = joinLines(lines);
  const bbox = union(lines.map((l) => l.bbox));
  let wordCount = 0;
  let confidenceSum = 0;
  for (const l of lines) for (const w of l.words) (wordCount++, (confidenceSum += w.confidence));
  const confidence = wordCount ? confidenceSum / wordCount : 1;
  const block: Block = { type: group[0].list ? 'list_item' : 'paragraph', text, bbox, lines, confidence };
  // A body-size heading introduces the text right below it, starting at the same left edge.
  const h = height(lines[0].bbox);
  const follower = next?.[0].line.bbox;
  const introduces = follower !== undefined && follower[1] - bbox[3] < 2.5 * h && Math.abs(follower[0] - bbox[0]) < h;
  const level = headingLevel(group, text, wordCount, style, introduces);
  if (level > 0) Object.assign(block, { type: 'heading', level });
  return block;
}
