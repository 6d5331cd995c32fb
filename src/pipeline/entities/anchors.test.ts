import { describe, expect, it } from 'vitest';
import { buildLabelIndex } from '../extract/labels.js';
import { schemaFields } from '../extract/schema-fields.js';
import { AnchorScan, anchorTest } from './anchors.js';
import { foldWithMap } from './normalize.js';

// A small deterministic generator, so a failure can be replayed.
function random(seed: number) {
  let s = seed;
  return (n: number) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s % n;
  };
}

const BOUNDS = { before: /[\p{L}\d_]/u, after: /[\p{L}\d_]/u };

describe('anchor scan', () => {
  it('never rules out a text a label pattern matches (the extractor label regexes, on made-up lines)', () => {
    const fields = schemaFields({
      type: 'object',
      properties: {
        invoice_number: { type: 'string' },
        issue_date: { type: 'string', format: 'date' },
        due_date: { type: 'string', format: 'date' },
        total: { type: 'number' },
        subtotal: { type: 'number' },
        vat_id: { type: 'string', 'x-aliases': ['N° TVA', 'Ust-IdNr.'] },
        ref: { type: 'string', 'x-aliases': ['ht', 'e mail'] },
      },
    });
    const index = buildLabelIndex(fields);
    const pieces = [...new Set(fields.flatMap((f) => f.labels.flatMap((l) => l.text.split(' '))))];
    const glue = [' ', '', '.', '-', ': ', ' | ', 'x', '1', 'é', '_', '/'];
    const next = random(7);
    let matched = 0;
    for (let i = 0; i < 3000; i++) {
      let text = '';
      for (let k = 0, n = 1 + next(6); k < n; k++) text += pieces[next(pieces.length)]! + glue[next(glue.length)]!;
      const folded = foldWithMap(text).text;
      const may = index.anchors.scan(folded);
      index.regexes.forEach(({ re }, field) => {
        re.lastIndex = 0;
        const hit = re.exec(folded);
        if (hit && hit[0]) {
          matched++;
          expect(may[field], `${JSON.stringify(folded)} holds a label of ${fields[field]!.path}`).toBe(true);
        }
      });
    }
    expect(matched).toBeGreaterThan(1000);
  });

  it('rules out a label word inside another word, but not a word glued to the next one of its label', () => {
    const scan = new AnchorScan([['ht'], ['e mail'], ['vat number']], BOUNDS);
    expect(scan.scan('copyright notice')).toEqual([false, false, false]);
    expect(scan.scan('total ht: 12')).toEqual([true, false, false]);
    expect(scan.scan('email: a@b.c')).toEqual([false, true, false]);
    expect(scan.scan('vatnumber 12')).toEqual([false, false, true]);
    expect(scan.scan('privatnumber')).toEqual([false, false, true]); // "number" ends the label: only its end is bound
  });

  it('reports every group at a place where anchors of several groups begin', () => {
    const scan = new AnchorScan([['date'], ['dates of issue'], ['issue']]);
    expect(scan.scan('dates of issue')).toEqual([true, true, true]);
    expect(scan.scan('update')).toEqual([true, false, false]);
  });

  it('never rules out a label without a word', () => {
    expect(anchorTest([''])('anything')).toBe(true);
  });
});
