// A document made ready for classification where its canonical form lives (a pipeline thread):
// its fingerprint, the text ranking reads and, when a miss may propose a draft, that proposal.
// The worker's event loop then classifies with these and the database alone, never walking a
// large document itself.
import type { CanonicalJson } from '../canonical/serialize.js';
import { type ExtractionPolicy, runEntities } from '../extract/index.js';
import { type DraftProposal, proposeDraft } from './draft-schema.js';
import { type Fingerprint, fingerprintOf } from './fingerprint.js';
import { RANKED_TEXT_CHARS } from './rank.js';

/** Pages a fingerprint reads: a document's kind and sender show on its first pages. */
export const FINGERPRINT_PAGES = 5;

export interface FingerprintInput {
  canonical: CanonicalJson;
  format: string | null;
  entities?: { type: string; text: string; value: unknown }[] | null;
}

export function fingerprintOfDocument(doc: FingerprintInput, policy: ExtractionPolicy = {}): Fingerprint {
  const long = doc.canonical.pages.length > FINGERPRINT_PAGES;
  const canonical = long
    ? { ...doc.canonical, pages: doc.canonical.pages.slice(0, FINGERPRINT_PAGES), text: doc.canonical.text.slice(0, 50_000) }
    : doc.canonical;
  const given = doc.entities?.length ? doc.entities.filter((e) => !long || ((e as { page?: number }).page ?? 1) <= FINGERPRINT_PAGES) : null;
  const entities = given ?? runEntities(canonical, { ...policy, generic_entities_enabled: true });
  return fingerprintOf(canonical, entities as never, doc.format);
}

export interface PreparedDocument {
  fingerprint: Fingerprint;
  /** The part of the document's text that ranking (and a model chooser) reads. */
  text: string;
  /** The draft a miss proposes (draft_on_miss_enabled); null when none was asked for. */
  draft: DraftProposal | null;
}

export function prepareDocument(doc: FingerprintInput, withDraft: boolean): PreparedDocument {
  const fingerprint = fingerprintOfDocument(doc);
  const entities = doc.entities ?? runEntities(doc.canonical, { generic_entities_enabled: true });
  return {
    fingerprint,
    text: doc.canonical.text.slice(0, RANKED_TEXT_CHARS),
    draft: withDraft ? proposeDraft(doc.canonical, entities as never, fingerprint.title) : null,
  };
}
