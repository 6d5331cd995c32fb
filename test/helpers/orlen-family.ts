// Same-layout invoices for forge tests, generated from the layout of a real one: the Orlen fuel
// invoice of ../shared/data/invoice2data/compare/Orlen.txt (a text rendering of the PDF, columns
// aligned with spaces). Each member keeps every line of the original and its column positions;
// only the values change (number, date, buyer, quantities and the amounts computed from them).
import fs from 'node:fs';
import { data } from './documents.js';

export interface OrlenInvoice {
  name: string;
  bytes: Buffer;
  /** What a template should extract from it. */
  expected: { invoice_number: string; date: string; buyer: string; amount_untaxed: number; amount: number };
}

const BUYERS = [
  ['GŁÓWNY URZĄD STATYSTYCZNY', '5261040828'],
  ['MIEJSKIE PRZEDSIĘBIORSTWO KOMUNIKACYJNE', '6750002236'],
  ['FIRMA TRANSPORTOWA KOWALSKI', '9542214567'],
  ['PRZEDSIĘBIORSTWO BUDOWLANE NOWAK', '7792345610'],
  ['SZPITAL WOJEWÓDZKI', '5213017228'],
  ['BIURO RACHUNKOWE ZIELIŃSKA', '8971234509'],
  ['HURTOWNIA SPOŻYWCZA WIŚNIEWSKI', '6462938475'],
  ['AGENCJA REKLAMOWA LEWANDOWSKI', '1132456789'],
  ['SZKOŁA PODSTAWOWA NR 12', '5842617390'],
  ['USŁUGI REMONTOWE WÓJCIK', '7123456780'],
] as const;

const pl = (n: number) => n.toFixed(2).replace('.', ',');
/** Replaces `from` by `to` in place, keeping the line's columns where they were. */
function put(line: string, from: string, to: string, align: 'left' | 'right' = 'right'): string {
  const at = line.indexOf(from);
  if (at < 0) throw new Error(`layout changed: ${from} not in ${line}`);
  const width = Math.max(from.length, to.length);
  const cell = align === 'right' ? to.padStart(from.length) : to.padEnd(from.length);
  return line.slice(0, at + from.length - cell.length) + cell + line.slice(at + from.length) + ' '.repeat(Math.max(0, width - from.length) * 0);
}

export function orlenFamily(count: number): OrlenInvoice[] {
  const original = fs.readFileSync(data('invoice2data/compare/Orlen.txt'), 'utf8').split('\n');
  const out: OrlenInvoice[] = [];
  for (let i = 0; i < count; i++) {
    const [buyer, nip] = BUYERS[i % BUYERS.length]!;
    const number = `F ${String(2100 + i * 37).padStart(4, '0')}K${20 + (i % 7)}/${4000 + i * 13}/${String(10 + i).padStart(2, '0')}`;
    const date = `2021-${String(1 + (i % 12)).padStart(2, '0')}-${String(3 + ((i * 5) % 25)).padStart(2, '0')}`;
    const litres = 20 + ((i * 7.319) % 40);
    const gross = Math.round(litres * 5.77 * 100) / 100;
    const net = Math.round((gross / 1.23) * 100) / 100;
    const vat = Math.round((gross - net) * 100) / 100;
    const lines = original.map((line) => {
      let l = line;
      if (l.startsWith('Faktura nr:')) l = put(put(l, 'F 1234K20/1234/12', number, 'left'), '2021-01-01', date);
      if (l.startsWith('Nabywca:')) l = `Nabywca:           ${buyer}`;
      if (l.startsWith('NIP:') && l.includes('5261040828')) l = `NIP:               ${nip}`;
      if (l.startsWith('1   EFECTA')) l = put(put(put(put(l, '54,910', litres.toFixed(3).replace('.', ',')), '257,59', pl(net)), '59,24', pl(vat)), '316,83', pl(gross));
      if (l.includes('Razem:') || l.includes('w tym:')) l = put(put(put(l, '257,59', pl(net)), '59,24', pl(vat)), '316,83', pl(gross));
      if (l.startsWith('Należność ogółem:')) l = `Należność ogółem: ${pl(gross)} PLN`;
      if (l.startsWith('Do dokumentów:')) l = l.replace('2021-01-01', date);
      return l;
    });
    out.push({ name: `orlen-${i + 1}.txt`, bytes: Buffer.from(lines.join('\n'), 'utf8'), expected: { invoice_number: number, date, buyer, amount_untaxed: net, amount: gross } });
  }
  return out;
}
