// Heading detection against the document's body style. Size ratios follow common type scales
// (steps of 1.2-1.25): ≥1.6× body is level 1, ≥1.3× level 2, ≥1.12× level 3. At body size, a
// short line set apart by weight (bold where the body is not) or by typeface (an italic or a
// sans run-in head) is level 4, but
// only when it introduces text below it: figure callouts share those traits and introduce nothing.

/** Document-wide typography, measured before any page is laid out. */
export interface TextStyle {
  /** Most common font size (pt) weighted by characters. */
  bodySize: number;
  /** Whether most body text is bold (then boldness says nothing about headings). */
  bodyBold: boolean;
  /** Most common font face. */
  bodyFont: string;
}

export interface LineStyle {
  size: number;
  bold: boolean;
  font: string;
}

export function headingLevel(group: readonly LineStyle[], text: string, wordCount: number, style: TextStyle, introduces: boolean): number {
  if (group.length > 3 || wordCount > 20 || !/\p{L}/u.test(text)) return 0;
  if (/[.,;]$/.test(text) && wordCount > 6) return 0;
  const size = [...group].map((g) => g.size).sort((a, b) => a - b)[group.length >> 1];
  const ratio = size / style.bodySize;
  if (ratio >= 1.6) return 1;
  if (ratio >= 1.3) return 2;
  if (ratio >= 1.12) return 3;
  if (!introduces || ratio < 0.92 || group.length > 2 || wordCount > 14 || /[.:;,]$/.test(text)) return 0;
  const bold = !style.bodyBold && group.every((g) => g.bold);
  const otherFace = style.bodyFont !== '' && group.every((g) => g.font !== '' && g.font !== style.bodyFont);
  return bold || otherFace ? 4 : 0;
}
