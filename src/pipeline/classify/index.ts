// Classification: fingerprints, their likeness, ranking against templates, and the chooser seam.
export { type Fingerprint, type Shape, fingerprintOf, foldLabel } from './fingerprint.js';
export { likeness, dice } from './similarity.js';
export { AMBIGUITY_MARGIN, CLASSIFY_THRESHOLD, type Candidate, type Classification, type TemplateProfile, RANKED_TEXT_CHARS, decide, fieldLabels, rankTemplates } from './rank.js';
export { type ChooserInput, type Choice, type ChosenClassification, type TemplateChooser, classifyWith, embeddedChooser } from './chooser.js';
export { FINGERPRINT_PAGES, type FingerprintInput, type PreparedDocument, fingerprintOfDocument, prepareDocument } from './prepared.js';
export type { DraftProposal } from './draft-schema.js';
