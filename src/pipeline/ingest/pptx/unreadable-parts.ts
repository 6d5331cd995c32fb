// The parts a slide leans on (its layout, its master, its speaker notes) that cannot be read. The
// slide is still read, but what came from them is lost: the notes' text, or the positions of
// placeholders that have none of their own (their text is then placed over the whole slide, which
// can change the reading order). The result says so (engine.unreadable_parts) instead of nothing.
import type { Package } from './package.js';
import type { XNode } from './xml.js';

export interface UnreadablePart {
  part: string;
  /** The selected pages that use the part: slides, for notes the slide they belong to. */
  page_numbers: number[];
  message: string;
}

export type PartRole = 'layout' | 'master' | 'notes';

const LOST: Record<PartRole, string> = {
  layout: 'placeholders that take their position from it are placed over the whole slide',
  master: 'placeholders that take their position from it are placed over the whole slide',
  notes: 'the speaker notes are left out',
};
const NAME: Record<PartRole, string> = { layout: 'slide layout', master: 'slide master', notes: 'speaker notes' };

export class UnreadableParts {
  private readonly found = new Map<string, UnreadablePart>();

  constructor(private readonly pkg: Package) {}

  /** The part, or undefined when it cannot be read: it is then noted as used by `pageNumber`. */
  read(name: string, role: PartRole, pageNumber: number): XNode | undefined {
    const problem = this.pkg.problem(name);
    if (problem === undefined) return this.pkg.part(name);
    let entry = this.found.get(name);
    if (!entry) {
      entry = { part: name, page_numbers: [], message: `the ${NAME[role]} ${name} cannot be read (${problem}): ${LOST[role]}` };
      this.found.set(name, entry);
    }
    if (!entry.page_numbers.includes(pageNumber)) entry.page_numbers.push(pageNumber);
    return undefined;
  }

  /** The parts used by the given pages (notes of unselected slides are read too in `pages` mode). */
  of(pages: Set<number>): UnreadablePart[] {
    return [...this.found.values()]
      .map((p) => ({ ...p, page_numbers: p.page_numbers.filter((n) => pages.has(n)) }))
      .filter((p) => p.page_numbers.length > 0);
  }
}
