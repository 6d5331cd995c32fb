// The parts a slide leans on (its layout, its master, its speaker notes, and the relationship
// parts that lead to them) that cannot be read. The slide is still read, but what came from them
// is lost: the notes' text, or the positions of placeholders that have none of their own (their
// text is then placed over the whole slide, which can change the reading order). The result says
// so (engine.unreadable_parts) instead of nothing.
import { type Package, relsPartName } from './package.js';
import type { XNode } from './xml.js';

export interface UnreadablePart {
  part: string;
  /** The selected pages that use the part: slides, for notes the slide they belong to. */
  page_numbers: number[];
  message: string;
}

export type PartRole = 'layout' | 'master' | 'notes';
/** Whose relationships: a slide's lead to its layout and notes, a layout's to its master. */
export type RelsRole = 'slide_rels' | 'layout_rels';

const LOST: Record<PartRole | RelsRole, string> = {
  layout: 'placeholders that take their position from it are placed over the whole slide',
  master: 'placeholders that take their position from it are placed over the whole slide',
  notes: 'the speaker notes are left out',
  slide_rels:
    'the slide layout, slide master and speaker notes it names are not found: placeholders that take their position from them are placed over the whole slide, and the speaker notes are left out',
  layout_rels: 'the slide master it names is not found: placeholders that take their position from it are placed over the whole slide',
};
const NAME: Record<PartRole | RelsRole, string> = {
  layout: 'the slide layout',
  master: 'the slide master',
  notes: 'the speaker notes',
  slide_rels: "the slide's relationship part",
  layout_rels: "the slide layout's relationship part",
};

export class UnreadableParts {
  private readonly found = new Map<string, UnreadablePart>();

  constructor(private readonly pkg: Package) {}

  /** The part, or undefined when it cannot be read: it is then noted as used by `pageNumber`. */
  read(name: string, role: PartRole, pageNumber: number): XNode | undefined {
    const problem = this.pkg.problem(name);
    if (problem === undefined) return this.pkg.part(name);
    this.note(name, role, problem, pageNumber);
    return undefined;
  }

  /**
   * The relationships of `name` (a slide, a layout); none when their part cannot be read: it is
   * then noted as used by `pageNumber`. A part without a relationship part simply has none.
   */
  rels(name: string, role: RelsRole, pageNumber: number): { target: string; type: string }[] {
    const problem = this.pkg.relsProblem(name);
    if (problem !== undefined) this.note(relsPartName(name), role, problem, pageNumber);
    return [...this.pkg.rels(name).values()];
  }

  private note(name: string, role: PartRole | RelsRole, problem: string, pageNumber: number): void {
    let entry = this.found.get(name);
    if (!entry) {
      entry = { part: name, page_numbers: [], message: `${NAME[role]} ${name} cannot be read (${problem}): ${LOST[role]}` };
      this.found.set(name, entry);
    }
    if (!entry.page_numbers.includes(pageNumber)) entry.page_numbers.push(pageNumber);
  }

  /** The parts used by the given pages (notes of unselected slides are read too in `pages` mode). */
  of(pages: Set<number>): UnreadablePart[] {
    return [...this.found.values()]
      .map((p) => ({ ...p, page_numbers: p.page_numbers.filter((n) => pages.has(n)) }))
      .filter((p) => p.page_numbers.length > 0);
  }
}
