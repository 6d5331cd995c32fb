// The seam where a model may settle an ambiguous classification: when the two best candidates are
// within the margin, a TemplateChooser picks one of the candidates (or none). The embedded chooser
// takes the leader only when it is clear of the threshold by the margin; a vision-language
// chooser (with a `vlm` endpoint in effect) implements the same interface.
import { type Candidate, type Classification, type MissReason, decide } from './rank.js';
import type { ModelUsage } from '../model-usage.js';

export interface ChooserInput {
  candidates: Candidate[];
  threshold: number;
  margin: number;
  /** The document's text, for a model to read. */
  text: string;
}

export interface Choice {
  template_id: string | null;
  /** Who decided (see Classification.method). */
  method: string;
  /** Why no candidate was chosen (template_id null); absent: the ranking stays ambiguous. */
  reason_code?: MissReason;
  reason?: string;
  usage?: ModelUsage;
}

export interface TemplateChooser {
  readonly name: string;
  choose(input: ChooserInput): Promise<Choice>;
}

/** Within the margin, trust the leader only when it stands well above the threshold. */
export const embeddedChooser: TemplateChooser = {
  name: 'embedded',
  async choose({ candidates, threshold, margin }) {
    const [top, second] = candidates;
    if (top && second && top.score >= threshold + 4 * margin && top.score > second.score) {
      return { template_id: top.template_id, method: 'embedded_leader', reason: `${top.name} leads ${second.name} narrowly but scores well above the threshold.` };
    }
    return { template_id: null, method: 'embedded' };
  },
};

/** A classification, with what a model chooser spent when one was asked. */
export type ChosenClassification = Classification & { model?: ModelUsage };

/** Ranked candidates to a decision, asking the chooser only when the embedded rule cannot settle it. */
export async function classifyWith(chooser: TemplateChooser, candidates: Candidate[], text: string): Promise<ChosenClassification> {
  const decision = decide(candidates);
  if (decision.reason_code !== 'ambiguous') return decision;
  const choice = await chooser.choose({ candidates: candidates.filter((c) => c.score >= decision.threshold), threshold: decision.threshold, margin: decision.margin, text });
  const spent = choice.usage ? { model: choice.usage } : {};
  const winner = choice.template_id ? candidates.find((c) => c.template_id === choice.template_id) : undefined;
  if (!winner) return { ...decision, method: choice.method, reason_code: choice.reason_code ?? 'ambiguous', reason: choice.reason ?? decision.reason, ...spent };
  const { reason_code: _ambiguous, ...chosen } = decision;
  return { ...chosen, matched: true, template_id: winner.template_id, version: winner.version, score: winner.score, method: choice.method, ...(choice.reason ? { reason: choice.reason } : {}), ...spent };
}
