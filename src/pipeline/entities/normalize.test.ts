import { describe, expect, it } from 'vitest';
import { labelText } from '../extract/schema-fields.js';
import { fold, foldWithMap, matchesOf } from './normalize.js';

const SAMPLES = [
  'Numéro de TVA: FR 12 345',
  'Rechnungsnr. / Datum: 03.08.2014',
  'ogółem DO ZAPŁATY',
  'Straße 1 – Œuvre “quoted” ÆØÅ',
  'İstanbul ΣΟΦΙΑ ﬁle ½ 𝔸 \u0301x',
  'TOTAL (EUR) 1.234,56 | 19 %',
  '',
];

describe('text normalisation', () => {
  it('folds with a map as character by character folding does', () => {
    for (const s of SAMPLES) {
      let text = '';
      const map: number[] = [];
      for (let i = 0; i < s.length; i++) {
        for (const c of fold(s[i]!)) {
          text += c;
          map.push(i);
        }
      }
      map.push(s.length);
      const folded = foldWithMap(s);
      expect(folded.text).toBe(text);
      expect(folded.map.slice(0, map.length)).toEqual(map);
    }
  });

  it('reads label text of plain ASCII as of any text', () => {
    const general = (s: string) => fold(s).replace(/[^\p{L}\p{N}#%]+/gu, ' ').replace(/\s+/g, ' ').trim();
    for (let c = 0; c < 128; c++) {
      const s = `${String.fromCharCode(c)}Ab-${String.fromCharCode(c)}9 x#%_y${String.fromCharCode(c)}`;
      expect(labelText(s)).toBe(general(s));
    }
    for (const s of SAMPLES) expect(labelText(s)).toBe(general(s));
  });

  it('matches as matchAll does', () => {
    const re = /\d+/g;
    for (const s of SAMPLES) expect(matchesOf(re, s).map((m) => [m.index, m[0]])).toEqual([...s.matchAll(re)].map((m) => [m.index, m[0]]));
  });
});
