// Classification: fingerprints, their likeness, ranking against templates, and the chooser seam.
export { type Fingerprint, type Shape, fingerprintOf, foldLabel } from './fingerprint.js';
export { likeness, dice } from './similarity.js';
export { AMBIGUITY_MARGIN, CLASSIFY_THRESHOLD, type Candidate, type Classification, type TemplateProfile, decide, fieldLabels, rankTemplates } from './rank.js';
export { type ChooserInput, type Choice, type ChosenClassification, type TemplateChooser, classifyWith, embeddedChooser } from './chooser.js';
