// A slide's shapes → canonical blocks and tables, in reading order: titles first, then shapes
// top to bottom (shapes starting within 1/20 of the slide height of each other: left to right),
// as a viewer's eye and docling's PPTX reader both go.
import type { BBox, Block, Line, Table } from '../../canonical/model.js';
import { union } from '../../layout/geometry.js';
import { tableBlock } from '../../layout/table-block.js';
import { inheritedBox, isBulletedBody, isTitle } from './placeholders.js';
import type { Shape } from './shapes.js';
import { readTable } from './table.js';
import { layoutText, startCursor } from './text-geometry.js';
import type { XNode } from './xml.js';

export interface SlideContent {
  blocks: Block[];
  tables: Table[];
}

interface Context {
  width: number;
  height: number;
  layout?: XNode;
  master?: XNode;
}

export function slideBlocks(shapes: readonly Shape[], ctx: Context): SlideContent {
  const placed = shapes.flatMap((s) => {
    const box = onTheSlide(boxOf(s, ctx), ctx);
    return box ? [{ s, box }] : [];
  });
  const band = ctx.height / 20;
  placed.sort((a, b) => {
    const ta = a.s.kind === 'text' && isTitle(a.s.placeholder) ? 0 : 1;
    const tb = b.s.kind === 'text' && isTitle(b.s.placeholder) ? 0 : 1;
    if (ta !== tb) return ta - tb;
    if (Math.abs(a.box[1] - b.box[1]) > band) return a.box[1] - b.box[1];
    return a.box[0] - b.box[0] || a.s.order - b.s.order;
  });
  const blocks: Block[] = [];
  const tables: Table[] = [];
  for (const { s, box } of placed) {
    if (s.kind === 'table') {
      const table = readTable(s.table, box);
      blocks.push(tableBlock(table, tables.length, tableLines(table)));
      tables.push(table);
    } else blocks.push(...textBlocks(s, box));
  }
  return { blocks, tables };
}

/**
 * A shape's box as the slide shows it, like PDF words (pdf-reader.ts onThePage): one wholly off
 * the slide is not on it (a slide show and a print leave it out; shapes parked at x=20,000,000 EMU
 * or at negative offsets), one that runs over an edge is cut at it. A box given with negative
 * extents is put the right way round first.
 */
function onTheSlide([a, b, c, d]: BBox, { width, height }: Context): BBox | null {
  const [x0, x1] = a <= c ? [a, c] : [c, a];
  const [y0, y1] = b <= d ? [b, d] : [d, b];
  if (!(x1 > 0 && y1 > 0 && x0 < width && y0 < height)) return null;
  return [Math.max(0, x0), Math.max(0, y0), Math.min(width, x1), Math.min(height, y1)];
}

function boxOf(s: Shape, ctx: Context): BBox {
  if (s.bbox) return s.bbox;
  if (s.kind === 'text' && s.placeholder) {
    const inherited = inheritedBox(s.placeholder, ctx.layout, ctx.master);
    if (inherited) return inherited;
  }
  return [0, 0, ctx.width, ctx.height];
}

function textBlocks(s: Extract<Shape, { kind: 'text' }>, box: BBox): Block[] {
  const title = isTitle(s.placeholder);
  const bulleted = isBulletedBody(s.placeholder);
  const cursor = startCursor(box);
  const blocks: Block[] = [];
  const counters: number[] = [];
  for (const p of s.paragraphs) {
    const size = p.size ?? (title ? 40 : 18);
    if (p.text.trim() === '') {
      cursor.y += size * 1.2;
      counters.length = 0;
      continue;
    }
    const list = p.bullet === 'char' || p.bullet === 'number' || (p.bullet === 'inherit' && bulleted);
    // Auto-numbered paragraphs show their number on the slide; the text carries it too.
    let text = p.text.replace(/[ \t]+/g, ' ').trim();
    if (p.bullet === 'number') {
      counters.length = p.level + 1;
      counters[p.level] = (counters[p.level] ?? 0) + 1;
      text = `${counters[p.level]}. ${text}`;
    } else if (!list) counters.length = 0;
    const lines = layoutText(text, box, size, cursor, p.bold);
    if (lines.length === 0) continue;
    const block: Block = {
      type: title ? 'heading' : list ? 'list_item' : 'paragraph',
      text: lines.map((l) => l.text).join(' '),
      bbox: union(lines.map((l) => l.bbox)),
      lines,
      confidence: 1,
    };
    if (title) block.level = s.placeholder?.type === 'ctrTitle' ? 1 : 2;
    blocks.push(block);
  }
  return blocks;
}

/** A native table's rows as lines, each non-empty cell one "word" boxed by its cell. */
function tableLines(table: Table): Line[] {
  const lines: Line[] = [];
  for (let r = 0; r < table.rows; r++) {
    const cells = table.cells.filter((c) => c.row === r && c.text !== '');
    if (cells.length === 0) continue;
    lines.push({
      text: cells.map((c) => c.text).join(' | '),
      bbox: union(cells.map((c) => c.bbox)),
      words: cells.map((c) => ({ text: c.text, bbox: c.bbox, confidence: 1 })),
    });
  }
  return lines;
}
