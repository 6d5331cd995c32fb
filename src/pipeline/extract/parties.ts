// Issuer and recipient blocks. The recipient's block follows a "Bill to" label (Rechnungsempfänger,
// Facturé à, Factuuradres, Ship to …): its names are never the issuer's. The issuer's name is
// the one its own contact details spell: the domain of the website or e-mail address printed on
// the document.
import { withoutLegalForm } from '../entities/organisations.js';
import type { LocatedEntity } from '../entities/recognize.js';
import type { TextLine } from '../entities/text.js';

const RECIPIENT = /^\s*(?:bill(?:ed)?\s+to|invoice\s+to|sold\s+to|ship(?:ped)?\s+to|deliver(?:y|ed)?\s+to|customer|client|recipient|rechnungs?(?:empf(?:ae|a|ä)nger|adresse)|lieferadresse|kunde|factur(?:é|e)\s+(?:à|a)|livr(?:é|e)\s+(?:à|a)|adresse\s+de\s+facturation|factuuradres|afleveradres|facturar\s+a|cliente|destinatario|nabywca)\b/i;

/** Lines of the recipient blocks: each "Bill to"-like label line and the (at most four) lines under it in its block. */
export function recipientLines(lines: TextLine[]): Set<TextLine> {
  const out = new Set<TextLine>();
  lines.forEach((line, i) => {
    if (!RECIPIENT.test(line.text)) return;
    out.add(line);
    for (let j = i + 1; j < lines.length && j <= i + 4; j++) {
      const next = lines[j]!;
      if (next.page !== line.page || next.block !== line.block && j > i + 1 && next.bbox[1] - lines[j - 1]!.bbox[3] > 2 * (next.bbox[3] - next.bbox[1])) break;
      out.add(next);
    }
  });
  return out;
}

/** The candidates whose evidence lies outside the recipient's blocks (an address under "Bill to" is the customer's). */
export function withoutRecipientEvidence<C extends { evidence: { page: number; bbox: readonly number[] }[] }>(candidates: C[], lines: TextLine[]): C[] {
  const recipient = [...recipientLines(lines)];
  if (!recipient.length) return candidates;
  const inside = (e: C['evidence'][number]) =>
    recipient.some((l) => l.page === e.page && Math.min(l.bbox[3], e.bbox[3]) - Math.max(l.bbox[1], e.bbox[1]) > 0 && Math.min(l.bbox[2], e.bbox[2]) - Math.max(l.bbox[0], e.bbox[0]) > 0);
  return candidates.filter((c) => !c.evidence.some(inside));
}

const squash = (s: string) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '');

/** Second-level names of the domains printed on the document ("azure-interior" from www.azure-interior.com or x@azure-interior.com). */
export function domainNames(entities: LocatedEntity[]): string[] {
  const out: string[] = [];
  for (const e of entities) {
    if (e.type !== 'email' && e.type !== 'url') continue;
    const host = e.type === 'email' ? String(e.value).split('@')[1] ?? '' : String(e.value).replace(/^[a-z]+:\/\//i, '').split(/[/:?#]/)[0]!;
    const parts = host.toLowerCase().replace(/^www\./, '').split('.');
    if (parts.length >= 2) out.push(squash(parts[parts.length - 2]!));
  }
  return out.filter((d) => d.length >= 4 && !/^(?:gmail|yahoo|hotmail|outlook|example|gmx|web|live|icloud|mail)$/.test(d));
}

/** A short line near the top of the first page whose letters are a printed domain's name. */
export function nameFromDomain(lines: TextLine[], entities: LocatedEntity[], excluded: Set<TextLine>): TextLine | null {
  const domains = domainNames(entities);
  if (!domains.length) return null;
  const firstPage = lines[0]?.page;
  const top = lines.filter((l) => l.page === firstPage && !excluded.has(l)).slice(0, 15);
  return top.find((l) => l.words.length <= 5 && l.words.length >= 1 && !/\d/.test(l.text) && !l.text.includes('@') && domains.includes(squash(l.text))) ?? null;
}

// Lines that state a company's legal identity: capital, register, registered office.
const REGISTRATION = /\b(?:au capital|capital social|share capital|rcs|siret|siren|kvk|handelsregister|hrb|amtsgericht|registered office|regd\.? office|registro|sede legale|si[eè]ge social|cin\s*:|company (?:no|number|reg))\b/i;

/**
 * How much the rest of the document confirms a name as the issuer's (0 to 0.37): it heads the
 * first page (the issuer's block), the document's own website or e-mail domain spells it, it is
 * printed again outside the recipient's block, and a registration line (capital, register,
 * registered office) carries it.
 */
export function issuerSupport(name: string, line: TextLine, pageHeight: number, lines: TextLine[], entities: LocatedEntity[], recipient: Set<TextLine>): number {
  const core = squash(withoutLegalForm(name));
  if (core.length < 3) return 0;
  let support = line.page === lines[0]?.page && line.bbox[1] < 0.15 * pageHeight ? 0.07 : 0;
  if (domainNames(entities).some((d) => d === core || (core.length >= 4 && d.startsWith(core)))) support += 0.12;
  const again = lines.filter((l) => l !== line && !recipient.has(l) && squash(l.text).includes(core));
  if (again.length) support += 0.08;
  if ([line, ...again].some((l) => REGISTRATION.test(l.text))) support += 0.1;
  return support;
}

// A web address or e-mail printed as a word: its letters are the domain itself, not a mention of the brand.
const ADDRESS_WORD = /@|\/|^www\./i;
// "Flipkart.com" mentions the brand Flipkart: the name part of a bare host name.
const HOST_WORD = /^([\p{L}\p{N}-]+)\.(?:[a-z]{2,6})(?:\.[a-z]{2})?$/iu;

export interface Brand {
  text: string;
  line: TextLine;
  start: number;
  end: number;
  /** Lines outside the recipient's block that print it. */
  lines: number;
}

/**
 * The name the issuer trades under, when it differs from its legal name: a word that the
 * document's own website or e-mail domain spells — whole ("Flipkart" or "Flipkart.com" for
 * flipkart.com) or, in capitals, as its start ("OYO" for oyorooms.com) — printed on two lines or
 * more outside the recipient's block. Its logo is often an image; the printed mentions are what
 * is left of it.
 */
export function brandFromDomain(lines: TextLine[], entities: LocatedEntity[], recipient: Set<TextLine>): Brand | null {
  // The customer's own e-mail in its block names the customer, not the issuer.
  const domains = [...new Set(domainNames(entities.filter((e) => !recipient.has(e.line))))];
  if (!domains.length) return null;
  let best: Brand | null = null;
  for (const domain of domains) {
    let first: Omit<Brand, 'lines'> | null = null;
    let count = 0;
    for (const line of lines) {
      if (recipient.has(line)) continue;
      const hit = line.words.find((w) => {
        if (ADDRESS_WORD.test(w.text)) return false;
        const name = brandPart(w.text);
        const letters = squash(name);
        if (letters.length < 3) return false;
        return letters === domain || (name === name.toUpperCase() && /\p{Lu}{3}/u.test(name) && domain.startsWith(letters));
      });
      if (!hit) continue;
      count++;
      if (!first) {
        const name = brandPart(hit.text);
        const start = hit.start + hit.text.indexOf(name);
        first = { text: name, line, start, end: start + name.length };
      }
    }
    if (first && count >= 2 && (!best || count > best.lines)) best = { ...first, lines: count };
  }
  return best;
}

/** A word without its surrounding punctuation, and a bare host name without its top-level domain. */
function brandPart(word: string): string {
  const bare = word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
  return HOST_WORD.exec(bare)?.[1] ?? bare;
}

/** Whether a company name already carries the brand ("Coolblue B.V." carries Coolblue): then the legal name stays. */
export const nameCarriesBrand = (name: string, brand: string): boolean => squash(name).includes(squash(brand));
