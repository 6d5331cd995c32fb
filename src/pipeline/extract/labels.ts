// Finding where fields' labels are printed: every line is searched, in folded form, for every
// label of every field (after one quick scan, entities/anchors.ts, has ruled out the fields whose
// labels the line cannot hold). With evidence planning, overlapping matches of different fields
// are resolved before any value is read: the longest label owns its place ("Due date" belongs to
// the due date, not to the invoice date whose label "date" it contains).
import { AnchorScan } from '../entities/anchors.js';
import { escapeRegExp } from '../entities/normalize.js';
import type { TextLine } from '../entities/text.js';
import type { FieldSpec } from './schema-fields.js';

export interface LabelMatch {
  field: number;
  line: TextLine;
  /** Range of the label in line.text. */
  start: number;
  end: number;
  weight: number;
  /** Folded label length: longer labels are more specific. */
  length: number;
}

function labelPattern(label: string): string {
  // (Escaping leaves spaces alone: the label is escaped once, then split into its words.)
  return escapeRegExp(label)
    .split(' ')
    .join(String.raw`[\s.\-_/'’°º]*`);
}

// What a label may not touch (the look-behind and look-ahead of the patterns below).
const LABEL_BOUNDS = { before: /[\p{L}\d_]/u, after: /[\p{L}\d_]/u };

export interface LabelIndex {
  regexes: { re: RegExp; labels: { text: string; weight: number }[] }[];
  /** Which fields' labels a line may hold: only those fields' regexes run on it. */
  anchors: AnchorScan;
}

export function buildLabelIndex(fields: FieldSpec[]): LabelIndex {
  return {
    anchors: new AnchorScan(fields.map((f) => f.labels.map((l) => l.text)), LABEL_BOUNDS),
    regexes: fields.map((f) => {
      const labels = [...f.labels].sort((a, b) => b.text.length - a.text.length);
      const alt = labels.map((l) => `(${labelPattern(l.text)})`).join('|');
      return { re: new RegExp(String.raw`(?<![\p{L}\d_])(?:${alt || '(?!)'})(?![\p{L}\d_])`, 'gu'), labels };
    }),
  };
}

/** Every label match of every field on the given lines. */
export function findLabels(index: LabelIndex, lines: TextLine[], plan: boolean): LabelMatch[] {
  const out: LabelMatch[] = [];
  for (const line of lines) {
    const { text: folded, map } = line.folded;
    const here: LabelMatch[] = [];
    const candidates = index.anchors.scan(folded);
    index.regexes.forEach(({ re, labels }, field) => {
      if (!candidates[field]) return;
      re.lastIndex = 0;
      for (let m = re.exec(folded); m; m = re.exec(folded)) {
        if (m[0].length === 0) {
          re.lastIndex++;
          continue;
        }
        const which = m.slice(1).findIndex((g) => g !== undefined);
        const label = labels[which] ?? labels[0]!;
        const start = map[m.index]!;
        const end = map[m.index + m[0].length - 1]! + 1;
        here.push({ field, line, start, end, weight: label.weight, length: m[0].length });
      }
    });
    if (!plan) {
      out.push(...here);
      continue;
    }
    for (const m of here) {
      const beaten = here.some((o) => o !== m && o.field !== m.field && o.start <= m.start && o.end >= m.end && o.length > m.length);
      if (!beaten) out.push(m);
    }
  }
  return out;
}
