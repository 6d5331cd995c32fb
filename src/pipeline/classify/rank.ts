// Ranking a document against a tenant's templates. Each template is scored from three signals,
// combined as a noisy OR (each one can make the case alone, and agreeing signals add up):
// - exemplars: documents that completed under the template (their fingerprints): the nearest
//   neighbours (0.6 × the best likeness + 0.4 × the mean of the best three, so one lucky
//   neighbour does not decide a kind), blended from three exemplars on with how typical the
//   document's proportions are of all of them (typicality.ts);
// - keywords the template declares (`json_schema["x-classification"].keywords`): all present
//   is strong evidence, some present is weak;
// - the template's own fields: how many of their labels the document prints.
// A document matches when the best score reaches THRESHOLD and beats the runner-up by MARGIN;
// within the margin the TemplateChooser decides (the embedded one takes a clear leader only).
import { type LinearRegex, compileLinear } from '../../lib/linear-regex.js';
import type { Fingerprint } from './fingerprint.js';
import { foldLabel } from './fingerprint.js';
import { likeness } from './similarity.js';
import { typicality } from './typicality.js';

export const CLASSIFY_THRESHOLD = 0.4;
export const AMBIGUITY_MARGIN = 0.03;
const EXEMPLARS_PER_TEMPLATE = 50;
// How much of the exemplar signal is the document's typicality (from three exemplars on); the
// rest is its nearest neighbours. Calibrated on the tuning slice of `npm run eval` so that the
// threshold sits midway between the best-scoring document of no template's kind (0.374) and the
// worst-scoring document of a template's kind that leads its ranking (0.424; a document whose
// format no exemplar shares aside).
const TYPICALITY_WEIGHT = 0.65;

export interface TemplateProfile {
  template_id: string;
  version: number;
  name: string;
  /** Phrases the template declares; all of them printed is strong evidence. */
  keywords: string[];
  /** Each field's labels, folded (from schemaFields). */
  fields: string[][];
  exemplars: { job_id: string; fingerprint: Fingerprint }[];
}

export interface Evidence {
  labels: string[];
  keywords: string[];
  identifiers: string[];
  layout: number;
  exemplars: number;
  best_exemplar_job_id: string | null;
  /** typicality: how well the document's proportions fit the exemplars' (null under three exemplars). */
  signals: { exemplars: number; typicality: number | null; keywords: number; fields: number };
}

export interface Candidate {
  template_id: string;
  version: number;
  name: string;
  score: number;
  evidence: Evidence;
}

export interface Classification {
  matched: boolean;
  template_id: string | null;
  version: number | null;
  score: number;
  threshold: number;
  margin: number;
  candidates: Candidate[];
  /** Who decided: `embedded` (the ranking), `embedded_leader`, `vlm`, `vlm_none`. */
  method: string;
  /** Why nothing matched (a miss only). */
  reason_code?: MissReason;
  reason?: string;
}

/** Why a classification has no winner. */
export type MissReason = 'no_templates' | 'below_threshold' | 'ambiguous' | 'none_fits';

const round = (x: number) => Math.round(x * 1000) / 1000;

function foldFull(text: string): string {
  return ` ${text.toLowerCase().replace(/[^\p{L}\d]+/gu, ' ').replace(/\s+/g, ' ').trim()} `;
}

function exemplarSignal(doc: Fingerprint, profile: TemplateProfile) {
  const scored = profile.exemplars.slice(0, EXEMPLARS_PER_TEMPLATE).map((e) => ({ e, l: likeness(doc, e.fingerprint) }));
  if (!scored.length) return { score: 0, typical: null, best: null };
  scored.sort((a, b) => b.l.score - a.l.score);
  const top = scored.slice(0, 3);
  const mean = top.reduce((s, x) => s + x.l.score, 0) / top.length;
  const neighbours = 0.6 * scored[0]!.l.score + 0.4 * mean;
  const typical = typicality(doc, scored.map((x) => x.e.fingerprint));
  return { score: typical === null ? neighbours : (1 - TYPICALITY_WEIGHT) * neighbours + TYPICALITY_WEIGHT * typical, typical, best: scored[0]! };
}

/**
 * A keyword as a regular expression (invoice2data-style keywords are), or null when it is not one.
 * A tenant wrote it and it runs over the whole document text, so it runs in the linear-time engine.
 */
function keywordRegex(keyword: string): LinearRegex | null {
  try {
    return compileLinear(keyword, 'iu');
  } catch {
    return null;
  }
}

/** A document's text three ways: as printed, folded to words, and as folded whitespace tokens. */
interface DocumentText {
  raw: string;
  folded: string;
  tokens: string[];
}

function documentText(raw: string): DocumentText {
  const tokens = raw.toLowerCase().split(/\s+/).map((t) => t.replace(/^[^\p{L}\d]+|[^\p{L}\d]+$/gu, '')).filter(Boolean);
  return { raw, folded: foldFull(raw), tokens };
}

// Words of a phrase may be printed apart: a text layer interleaves neighbouring spans ("Acme
// info@acme.test Trading"). At most this many tokens may stand between two words of a phrase.
const PHRASE_GAP = 2;

function printedApart(tokens: string[], words: string[]): boolean {
  if (words.length < 2) return false;
  for (let start = tokens.indexOf(words[0]!); start >= 0; start = tokens.indexOf(words[0]!, start + 1)) {
    let at = start;
    let ok = true;
    for (const word of words.slice(1)) {
      const next = tokens.slice(at + 1, at + 2 + PHRASE_GAP).indexOf(word);
      if (next < 0) {
        ok = false;
        break;
      }
      at += 1 + next;
    }
    if (ok) return true;
  }
  return false;
}

function keywordSignal(text: DocumentText, keywords: string[]) {
  const found = keywords.filter((k) => {
    const folded = foldFull(k).trim();
    if (folded && text.folded.includes(` ${folded} `)) return true;
    if (folded && printedApart(text.tokens, folded.split(' '))) return true;
    // Not printed as a phrase: the keyword may be a pattern ("NL8152[.]54[.]295[.]B01").
    return /[[\\(|?*+{]/.test(k) && !!keywordRegex(k)?.test(text.raw);
  });
  if (!keywords.length) return { score: 0, found };
  const fraction = found.length / keywords.length;
  return { score: fraction === 1 ? 0.9 : 0.5 * fraction, found };
}

function fieldSignal(doc: Fingerprint, text: string, fields: string[][]) {
  if (!fields.length) return { score: 0, found: [] as string[] };
  const labels = new Set(doc.labels);
  const found: string[] = [];
  for (const field of fields) {
    const hit = field.find((l) => l && (labels.has(l) || text.includes(` ${l} `)));
    if (hit) found.push(hit);
  }
  // A schema of a few generic fields (an invoice number, a total) says little about the sender.
  return { score: 0.35 * (found.length / fields.length) * Math.min(1, fields.length / 8), found };
}

function scoreTemplate(doc: Fingerprint, text: DocumentText, profile: TemplateProfile): Candidate {
  const ex = exemplarSignal(doc, profile);
  const kw = keywordSignal(text, profile.keywords.filter((k) => foldFull(k).trim() || /[[\\(]/.test(k)));
  const fs = fieldSignal(doc, text.folded, profile.fields);
  const score = 1 - (1 - ex.score) * (1 - kw.score) * (1 - fs.score);
  return {
    template_id: profile.template_id,
    version: profile.version,
    name: profile.name,
    score: round(score),
    evidence: {
      labels: [...new Set([...(ex.best?.l.labels ?? []), ...fs.found])].slice(0, 12),
      keywords: [...kw.found, ...(ex.best?.l.keywords ?? [])].slice(0, 12),
      identifiers: (ex.best?.l.identifiers ?? []).slice(0, 6),
      layout: round(ex.best?.l.layout ?? 0),
      exemplars: profile.exemplars.length,
      best_exemplar_job_id: ex.best?.e.job_id ?? null,
      signals: { exemplars: round(ex.score), typicality: ex.typical === null ? null : round(ex.typical), keywords: round(kw.score), fields: round(fs.score) },
    },
  };
}

/** How much of a document's text ranking reads. */
export const RANKED_TEXT_CHARS = 200_000;

/** Every template scored, best first (ties by name, so the order is stable). */
export function rankTemplates(doc: Fingerprint, printed: string, profiles: TemplateProfile[]): Candidate[] {
  const text = documentText(printed.slice(0, RANKED_TEXT_CHARS));
  return profiles.map((p) => scoreTemplate(doc, text, p)).sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
}

/** The decision over ranked candidates when the embedded rule settles it (no chooser needed). */
export function decide(candidates: Candidate[], threshold = CLASSIFY_THRESHOLD, margin = AMBIGUITY_MARGIN): Classification {
  const [top, second] = candidates;
  const base = { threshold, margin, candidates, score: top?.score ?? 0 };
  const miss = (reason_code: MissReason, reason: string): Classification => ({ ...base, matched: false, template_id: null, version: null, method: 'embedded', reason_code, reason });
  if (!top) return miss('no_templates', 'The tenant has no active templates to classify against.');
  if (top.score < threshold) {
    return miss('below_threshold', `The best candidate (${top.name}) scored ${top.score}, below the threshold ${threshold}.`);
  }
  if (second && top.score - second.score < margin) {
    return miss('ambiguous', `${top.name} (${top.score}) and ${second.name} (${second.score}) are within the margin ${margin}; neither is a clear winner.`);
  }
  return { ...base, matched: true, template_id: top.template_id, version: top.version, method: 'embedded' };
}

/** The labels of a template's fields, folded like document labels. */
export function fieldLabels(fields: { labels: { text: string }[]; columns?: { labels: { text: string }[] }[] }[]): string[][] {
  return fields.map((f) => f.labels.map((l) => foldLabel(l.text)).filter(Boolean));
}
