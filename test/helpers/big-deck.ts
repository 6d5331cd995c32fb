// A large presentation built from real text: every slide carries an invoice-like header (numbers,
// dates, amounts, an IBAN, an e-mail) and a paragraph of the ocr-text corpus, so entity recognition
// and template extraction have real work on every page.
import fs from 'node:fs';
import { deck, slide, sp } from '../pipeline/decks.js';
import { data } from './documents.js';

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A deck of `slides` slides (a few KB of text each). */
export function bigDeck(slides: number): Uint8Array {
  const dir = data('ocr-text');
  const prose = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.txt'))
    .sort()
    .flatMap((f) => fs.readFileSync(`${dir}/${f}`, 'utf8').split('\n'))
    .map((l) => l.trim())
    .filter((l) => l.length > 20);
  const parts: string[] = [];
  for (let i = 0; i < slides; i++) {
    const n = i + 1;
    const header = [
      `Invoice number: INV-2024-${String(n).padStart(5, '0')}`,
      `Invoice date: ${String((n % 28) + 1).padStart(2, '0')}.03.2024`,
      `Customer number: C-${10_000 + n}`,
      `Vendor: Example Supplies GmbH, contact billing${n}@example.com, +49 30 1234 ${String(n).padStart(4, '0')}`,
      `IBAN: DE89 3704 0044 0532 0130 00  BIC: COBADEFFXXX  VAT ID: DE123456789`,
      `Subtotal: ${(n * 10).toFixed(2)} EUR  Tax: ${(n * 1.9).toFixed(2)} EUR  Total: ${(n * 11.9).toFixed(2)} EUR`,
    ];
    const body = Array.from({ length: 12 }, (_, k) => prose[(i * 12 + k) % prose.length]!);
    const shapes = [...header, ...body].map((text, k) => sp(escape(text), 457_200, 300_000 + k * 330_000, 8_229_600, 320_000));
    parts.push(slide(shapes.join('')));
  }
  return deck(parts);
}
