// A quick rejection test for label regexes. A label pattern is the label's words, literally, joined
// by optional separators, so it only matches a text that contains every one of those words. A text
// that contains no "anchor" (one word per label) of a set of labels cannot match any of them, and
// the slow regex (Unicode, look-behind, dozens of alternatives) need not run on it: most lines of a
// document hold no label of most fields. Texts and labels are compared as they are (both folded).
//
// The label patterns also forbid some characters right before and after the label (a letter: "ht"
// is not a label inside "right"). When the anchor is the label's first word it must start where
// the label may start, when it is its last word it must end where the label may end; a hit that
// does not is no hit.
import { escapeRegExp } from './normalize.js';

/** Characters a label may not touch: before its first word, after its last (one-character Unicode classes). */
export interface LabelBounds {
  before: RegExp;
  after: RegExp;
}

interface Anchor {
  word: string;
  /** The anchor is the label's first word: nothing of `before` right before it. */
  start: boolean;
  /** The anchor is the label's last word: nothing of `after` right after it. */
  end: boolean;
}

/** One anchor per label: its longest word (the rarest). null when a label has no word to anchor it (never ruled out). */
function anchorsOf(labels: string[], bounds: LabelBounds | null): Anchor[] | null {
  const byWord = new Map<string, Anchor>();
  for (const label of labels) {
    const words = label.split(' ');
    let at = 0;
    words.forEach((w, i) => {
      if (w.length > words[at]!.length) at = i;
    });
    const word = words[at]!;
    if (!word) return null;
    const anchor = { word, start: !!bounds && at === 0, end: !!bounds && at === words.length - 1 };
    const known = byWord.get(word);
    // The same word anchoring several labels: only what all of them require.
    byWord.set(word, known ? { word, start: known.start && anchor.start, end: known.end && anchor.end } : anchor);
  }
  // A word that contains an unconstrained anchor is found whenever it is: the shorter one suffices.
  const all = [...byWord.values()];
  const free = all.filter((b) => !b.start && !b.end);
  return all.filter((a) => !free.some((b) => b !== a && a.word.includes(b.word)));
}

/** Longest words first: at a position, the alternation reports the longest anchor there. */
const alternation = (words: string[]) => [...words].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|');

const classTests = new WeakMap<RegExp, (cp: number) => boolean>();

/** A one-character class as a test of code points, with the answers for ASCII worked out once per class. */
function classTest(re: RegExp): (cp: number) => boolean {
  let test = classTests.get(re);
  if (!test) {
    const ascii = Array.from({ length: 128 }, (_, c) => re.test(String.fromCharCode(c)));
    test = (cp) => (cp < 128 ? ascii[cp]! : re.test(String.fromCodePoint(cp)));
    classTests.set(re, test);
  }
  return test;
}

/** The code point ending right before `at`, or -1 at the start. */
function codePointBefore(text: string, at: number): number {
  if (at <= 0) return -1;
  const low = text.charCodeAt(at - 1);
  if (low >= 0xdc00 && low <= 0xdfff && at >= 2) {
    const high = text.charCodeAt(at - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.codePointAt(at - 2)!;
  }
  return low;
}

/**
 * Which of several label sets may match in a text, in one scan. Every position where an anchor
 * starts is visited (the scan restarts one character after each hit), and a hit on an anchor
 * also counts for the anchors it begins with (the alternation reports the longest one there).
 */
export class AnchorScan {
  private readonly re: RegExp | null;
  /** For each anchor word: the anchors (of any group) that begin it, itself included, with their groups. */
  private readonly prefixes = new Map<string, { anchor: Anchor; group: number }[]>();

  private readonly touchesBefore: ((cp: number) => boolean) | null;
  private readonly touchesAfter: ((cp: number) => boolean) | null;
  /** Groups that no text rules out (a label without a word). */
  private readonly always: boolean[];

  constructor(
    readonly groups: string[][],
    bounds: LabelBounds | null = null,
  ) {
    this.touchesBefore = bounds && classTest(bounds.before);
    this.touchesAfter = bounds && classTest(bounds.after);
    const owners = new Map<string, { anchor: Anchor; group: number }[]>();
    this.always = groups.map((labels, group) => {
      const anchors = anchorsOf(labels, bounds);
      for (const anchor of anchors ?? []) owners.set(anchor.word, [...(owners.get(anchor.word) ?? []), { anchor, group }]);
      return anchors === null;
    });
    for (const word of owners.keys()) {
      const all: { anchor: Anchor; group: number }[] = [];
      for (let n = 1; n <= word.length; n++) all.push(...(owners.get(word.slice(0, n)) ?? []));
      this.prefixes.set(word, all);
    }
    this.re = owners.size ? new RegExp(alternation([...owners.keys()]), 'g') : null;
  }

  /** found[g] is true when group g may match in `text`. */
  scan(text: string): boolean[] {
    const found = [...this.always];
    const re = this.re;
    if (!re) return found;
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const at = m.index;
      for (const { anchor, group } of this.prefixes.get(m[0])!) {
        if (found[group] || !this.fits(text, at, anchor)) continue;
        found[group] = true;
      }
      re.lastIndex = at + 1;
    }
    return found;
  }

  private fits(text: string, at: number, anchor: Anchor): boolean {
    if (anchor.start) {
      const before = codePointBefore(text, at);
      if (before >= 0 && this.touchesBefore!(before)) return false;
    }
    if (anchor.end) {
      const after = text.codePointAt(at + anchor.word.length);
      if (after !== undefined && this.touchesAfter!(after)) return false;
    }
    return true;
  }
}

/** Whether a text may hold one of the labels (false: it certainly holds none). */
export function anchorTest(labels: string[], bounds: LabelBounds | null = null): (text: string) => boolean {
  const scan = new AnchorScan([labels], bounds);
  return (text) => scan.scan(text)[0]!;
}

