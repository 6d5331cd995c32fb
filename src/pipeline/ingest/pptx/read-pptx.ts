// A PPTX → source pages, one per slide in presentation order (p:sldIdLst), with speaker notes
// placed by `pptx_notes_mode`: `margin` adds a `notes` block in a virtual margin right of the
// slide (x from the slide width to 4/3 of it), `pages` gives each slide's notes their own page
// after it (sized like the notes page, p:notesSz), a page of the document like the slides, `off`
// leaves them out.
import type { Block } from '../../canonical/model.js';
import { findKeyValues } from '../../layout/key-values.js';
import { union } from '../../layout/geometry.js';
import { corruptDocument, emptyDocument, notePageCount } from '../errors.js';
import { type PagePlanOptions, planPages } from '../page-plan.js';
import type { SourcePage } from '../source-page.js';
import { openPackage, type Package, relsPartName } from './package.js';
import { type UnreadablePart, UnreadableParts } from './unreadable-parts.js';
import { EMU_PER_POINT } from './placeholders.js';
import { readShapes } from './shapes.js';
import { slideBlocks } from './slide-blocks.js';
import { readTextBody } from './text-body.js';
import { layoutText, startCursor } from './text-geometry.js';
import { type XNode, child, childrenOf, path } from './xml.js';

export type { UnreadablePart } from './unreadable-parts.js';
export type NotesMode = 'margin' | 'pages' | 'off';

const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/';
const NOTES_SIZE = 12;
const MIN_SLIDE_EMU = 914_400;
const MAX_SLIDE_EMU = 51_206_400;

export interface PptxRead {
  pageCount: number;
  pages: SourcePage[];
  /** Slides whose part could not be read: kept as pages without text, listed here. */
  unreadable: UnreadablePage[];
  /** Layouts, masters and notes of the selected slides that could not be read, listed here. */
  unreadableParts: UnreadablePart[];
}

/** A slide of the slide list: its part, or null (with why) when the list's relationship names none. */
type SlideRef = { name: string } | { name: null; part: string; problem: string };

export interface UnreadablePage {
  page_number: number;
  part: string;
  message: string;
}

export function readPptx(bytes: Uint8Array, options: PagePlanOptions & { notesMode?: NotesMode }): PptxRead {
  const pkg = openPackage(bytes);
  // The main part is what the package's root relationships name (ppt/presentation.xml by habit).
  const main = [...pkg.rels('').values()].find((r) => r.type === `${REL}officeDocument`)?.target;
  const presName = main && pkg.part(main) ? main : 'ppt/presentation.xml';
  const pres = pkg.part(presName)?.children[0];
  if (!pres) {
    // With the package's own relationships unreadable, the usual name was only a guess.
    const rootProblem = pkg.relsProblem('');
    const guess = rootProblem ? ` (the package's relationship part _rels/.rels, which names it, cannot be read either: ${rootProblem})` : '';
    throw corruptDocument(`its presentation part ${presName} cannot be read: ${pkg.problem(presName) ?? 'it is empty'}${guess}`);
  }
  const listed = childrenOf(child(pres, 'p:sldIdLst'), 'p:sldId');
  if (listed.length === 0) throw emptyDocument('the presentation has no slides');
  // The slide list names each slide by a relationship of the presentation part: without those
  // relationships no slide can be found (the deck is broken, not empty).
  const presRels = relsPartName(presName);
  const relsProblem = pkg.relsProblem(presName);
  if (relsProblem) throw corruptDocument(`its slides cannot be found: the presentation's relationship part ${presRels} cannot be read (${relsProblem})`);
  const rels = pkg.rels(presName);
  // A slide whose relationship is missing (or names no slide) keeps its place in the deck as one
  // of the slides that cannot be read, rather than vanishing with the slides after it moving up.
  const slideParts: SlideRef[] = listed.map((s) => {
    const id = s.attrs['r:id'] ?? '';
    const r = rels.get(id);
    return r?.type === `${REL}slide` ? { name: r.target } : { name: null, part: presRels, problem: `the presentation's relationship part ${presRels} names no slide with the id "${id}"` };
  });
  // Each slide of a deck is a part of its own (PowerPoint never lists one twice). A part listed
  // again and again would be read, and its text output, once per listing: a 4 KB deck naming a
  // 1.5 MB slide five times gave a 148 MB result. The XML budgets count parts, so this is refused.
  const named = slideParts.flatMap((s) => (s.name === null ? [] : [s.name]));
  const repeated = named.find((name, i) => named.indexOf(name) !== i);
  if (repeated) throw corruptDocument(`the slide list names ${repeated} more than once`);
  // A size outside what the schema allows (ST_SlideSizeCoordinate: 914,400 to 51,206,400 EMU,
  // 1 to 56 inches) is not a slide's: the 10 × 7.5 in default stands in for it (sldSz cx=-9144000
  // or cy=1e30 made pages of negative or astronomical size).
  const size = (tag: string, fallback: [number, number]) => {
    const n = child(pres, tag);
    const side = (v: string | undefined, d: number) => {
      const emu = Number(v);
      return Number.isFinite(emu) && emu >= MIN_SLIDE_EMU && emu <= MAX_SLIDE_EMU ? emu / EMU_PER_POINT : d;
    };
    return n ? [side(n.attrs.cx, fallback[0]), side(n.attrs.cy, fallback[1])] : fallback;
  };
  const [width, height] = size('p:sldSz', [720, 540]);
  const [notesW, notesH] = size('p:notesSz', [540, 720]);
  const mode = options.notesMode ?? 'margin';
  // The document's pages: its slides, and in `pages` mode each slide's notes page after it. The
  // page range and the page cap (pdf_max_pages) select among them as among PDF pages, and a page
  // keeps its number in the whole document whatever the selection (page_count counts them all).
  const sequence: { slide: number; notes?: string }[] = [];
  const parts = new UnreadableParts(pkg);
  slideParts.forEach(({ name }, i) => {
    sequence.push({ slide: i });
    const notes = mode === 'pages' && name !== null ? slideNotes(name, parts, sequence.length) : '';
    if (notes) sequence.push({ slide: i, notes });
  });
  try {
    return readPages(pkg, parts, slideParts, sequence, options, { width, height, notesW, notesH, mode });
  } catch (err) {
    throw notePageCount(err, sequence.length);
  }
}

function readPages(
  pkg: Package,
  parts: UnreadableParts,
  slideParts: SlideRef[],
  sequence: { slide: number; notes?: string }[],
  options: PagePlanOptions,
  { width, height, notesW, notesH, mode }: { width: number; height: number; notesW: number; notesH: number; mode: NotesMode },
): PptxRead {
  const pages: SourcePage[] = [];
  const unreadable: UnreadablePage[] = [];
  let slidesRead = 0;
  const slidePages = new Set<number>();
  for (const at of planPages(sequence.length, options).indexes) {
    const { slide: i, notes } = sequence[at]!;
    if (notes !== undefined) {
      const blocks = [notesBlock(notes, [0, notesH / 2, notesW, notesH])];
      pages.push({ page_number: at + 1, width: notesW, height: notesH, rotation: 0, source: 'pptx', blocks, tables: [], key_values: [] });
      continue;
    }
    slidesRead++;
    slidePages.add(at + 1);
    const ref = slideParts[i]!;
    if (ref.name === null) {
      unreadable.push({ page_number: at + 1, part: ref.part, message: `slide ${i + 1} cannot be found: ${ref.problem}` });
      pages.push({ page_number: at + 1, width, height, rotation: 0, source: 'pptx', blocks: [], tables: [], key_values: [] });
      continue;
    }
    const name = ref.name;
    const problem = pkg.problem(name);
    if (problem) {
      unreadable.push({ page_number: at + 1, part: name, message: `slide ${i + 1} (${name}) cannot be read: ${problem}` });
      pages.push({ page_number: at + 1, width, height, rotation: 0, source: 'pptx', blocks: [], tables: [], key_values: [] });
      continue;
    }
    const slide = readSlide(pkg, parts, name, at + 1, width, height);
    const page: SourcePage = { page_number: at + 1, width, height, rotation: 0, source: 'pptx', blocks: slide.blocks, tables: slide.tables };
    const margin = mode === 'margin' ? slideNotes(name, parts, at + 1) : '';
    if (margin) page.blocks!.push(notesBlock(margin, [width, 0, width + width / 3, height]));
    page.key_values = findKeyValues(page.blocks!.filter((b) => b.type !== 'table').flatMap((b) => b.lines));
    pages.push(page);
  }
  // A deck none of whose selected slides can be read is broken, not empty.
  if (unreadable.length > 0 && unreadable.length === slidesRead) {
    throw corruptDocument(`no slide can be read: ${unreadable[0]!.message}${unreadable.length > 1 ? ` (and ${unreadable.length - 1} more)` : ''}`);
  }
  return { pageCount: sequence.length, pages, unreadable, unreadableParts: parts.of(slidePages) };
}

/** A slide's speaker notes ('' when it has none, or when its notes part cannot be read: then noted against `pageNumber`). */
function slideNotes(name: string, parts: UnreadableParts, pageNumber: number): string {
  const notesName = parts.rels(name, 'slide_rels', pageNumber).find((r) => r.type === `${REL}notesSlide`)?.target;
  return notesName ? notesText(parts.read(notesName, 'notes', pageNumber)) : '';
}

function readSlide(pkg: Package, parts: UnreadableParts, name: string, pageNumber: number, width: number, height: number) {
  const layoutName = parts.rels(name, 'slide_rels', pageNumber).find((r) => r.type === `${REL}slideLayout`)?.target;
  const layout = layoutName ? parts.read(layoutName, 'layout', pageNumber) : undefined;
  // A layout that cannot be read still names its master: its relationships are a part of their own.
  const masterName = layoutName ? parts.rels(layoutName, 'layout_rels', pageNumber).find((r) => r.type === `${REL}slideMaster`)?.target : undefined;
  const tree = path(pkg.part(name)?.children[0], 'p:cSld', 'p:spTree');
  return slideBlocks(readShapes(tree), {
    width,
    height,
    layout,
    master: masterName ? parts.read(masterName, 'master', pageNumber) : undefined,
  });
}

/** The notes body placeholder's text; the slide image and number placeholders are not notes. */
function notesText(notes: XNode | undefined): string {
  const tree = path(notes?.children[0], 'p:cSld', 'p:spTree');
  for (const sp of tree?.children ?? []) {
    if (sp.tag !== 'p:sp' || path(sp, 'p:nvSpPr', 'p:nvPr', 'p:ph')?.attrs.type !== 'body') continue;
    return readTextBody(child(sp, 'p:txBody'))
      .map((p) => p.text)
      .join('\n')
      .trim();
  }
  return '';
}

function notesBlock(text: string, box: [number, number, number, number]): Block {
  const lines = layoutText(text, box, NOTES_SIZE, startCursor(box));
  return { type: 'notes', text, bbox: lines.length ? union(lines.map((l) => l.bbox)) : box, lines, confidence: 1 };
}
