// An id of which the document prints several different ones: two VAT ids (the issuer's and the
// customer's, where the customer's block is not labelled as such), two IBANs. The one a label or
// position picked is a guess among similar values, so it stays below the review floor; an id read
// inside the recipient's block ("Bill to", "Nabywca") is the customer's and no issuer's field.
import type { LocatedEntity } from '../entities/recognize.js';
import { compactTaxId } from '../entities/tax-ids.js';
import type { TextLine } from '../entities/text.js';
import { recipientLines } from './parties.js';
import type { Candidate } from './scalars.js';
import type { FieldSpec } from './schema-fields.js';

/** Below the default review floor (0.7). */
const AMONG_SIMILAR = 0.68;

const ID_CONCEPTS: Record<string, LocatedEntity['type']> = { tax_id: 'tax_id', iban: 'iban' };

const compact = (v: unknown) => compactTaxId(String(v));
/** The same id printed with and without its country prefix ("PL7740001454", "7740001454"). */
const sameId = (a: string, b: string) => a === b || a.replace(/^[A-Z]{2}/, '') === b.replace(/^[A-Z]{2}/, '');

export function holdAmongSimilar(spec: FieldSpec, best: Candidate, lines: TextLine[], entities: LocatedEntity[]): Candidate {
  const type = ID_CONCEPTS[spec.concept?.id ?? ''];
  if (!type || typeof best.value !== 'string' || best.confidence < AMONG_SIMILAR) return best;
  const recipient = recipientLines(lines);
  const chosen = compact(best.value);
  const ownEntity = entities.find((e) => e.type === type && sameId(compact(e.value), chosen));
  const inRecipient = !!ownEntity && recipient.has(ownEntity.line) && !entities.some((e) => e.type === type && sameId(compact(e.value), chosen) && !recipient.has(e.line));
  const others = entities.filter((e) => e.type === type && !recipient.has(e.line) && !sameId(compact(e.value), chosen));
  return inRecipient || others.length ? { ...best, confidence: AMONG_SIMILAR } : best;
}
