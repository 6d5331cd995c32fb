// The model TemplateChooser: when the two best templates are within the margin and a `vlm`
// endpoint is in effect, the model picks one of the candidates, or none, from their names and
// evidence, the document's text and (when the run has it) page 1's image. Its answer is held to a
// schema whose template_id is an enum of the candidates' ids plus null. A failure (no client, an
// error, an answer outside the enum) never fails the job: the embedded decision stands, and the
// reason says the model could not settle it.
import type { Candidate } from '../../pipeline/classify/rank.js';
import type { ModelUsage } from '../../pipeline/model-usage.js';
import { type ChooserInput, type Choice, type TemplateChooser, embeddedChooser } from '../../pipeline/classify/chooser.js';
import { ModelCallError } from '../backends/errors.js';
import type { AnswerTool, ModelClient, PageImage } from '../backends/types.js';
import { costOf } from '../extraction/extract.js';
import { cutToTokens } from '../extraction/budget.js';
import { hideSecrets } from '../backends/errors.js';

/** Document text the model reads: the first pages carry a document's kind and sender. */
export const CHOOSER_TEXT_TOKENS = 3_000;

const CHOOSE_TOOL: AnswerTool = { name: 'choose_template', description: 'Choose the template this document belongs to, or null when none of them fits.' };

const SYSTEM = [
  'You classify a business document: which of the candidate templates (kinds of document, often one per sender) does it belong to?',
  'Each candidate comes with what matched it: printed labels, keywords, identifiers (VAT ids, IBANs, domains) and layout likeness to documents already filed under it.',
  'Choose the candidate whose kind and sender the document really is; an identifier of the sender printed on the document is the strongest sign. Answer null when none of them fits.',
  'Give the candidate id exactly as listed, and one sentence of reason.',
].join('\n');

export interface ModelChooserOptions {
  /** The tenant's vlm client; throws when the endpoint cannot be used (then the embedded decision stands). */
  client: () => ModelClient;
  /** Page 1 as a PNG, when the run has it. */
  pageImage?: () => Promise<Uint8Array | null | undefined>;
  signal?: AbortSignal;
}

function describe(c: Candidate): string {
  const e = c.evidence;
  const parts = [`labels: ${e.labels.join(', ') || 'none'}`, `keywords: ${e.keywords.join(', ') || 'none'}`, `identifiers: ${e.identifiers.join(', ') || 'none'}`, `layout likeness ${e.layout}`];
  return `- id ${c.template_id}: "${c.name}" (score ${c.score}; ${parts.join('; ')})`;
}

export function choosePrompt(input: ChooserInput): string {
  const text = cutToTokens(input.text, CHOOSER_TEXT_TOKENS);
  return [`Candidates (scores within ${input.margin} of each other):`, ...input.candidates.map(describe), '', `Document text${text.cut ? ' (first part)' : ''}:`, text.text].join('\n');
}

export function chooseSchema(candidates: Candidate[]): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      template_id: { type: ['string', 'null'], enum: [...candidates.map((c) => c.template_id), null], description: 'The chosen candidate id, or null when none fits' },
      reason: { type: 'string' },
    },
    required: ['template_id', 'reason'],
  };
}

export class ModelChooser implements TemplateChooser {
  readonly name = 'vlm';

  constructor(private readonly options: ModelChooserOptions) {}

  async choose(input: ChooserInput): Promise<Choice> {
    let client: ModelClient | null = null;
    let usage: ModelUsage | undefined;
    try {
      client = this.options.client();
      const png = await this.options.pageImage?.().catch(() => null);
      const images: PageImage[] = png ? [{ page: 1, png }] : [];
      const answer = await client.extract({ images, system: SYSTEM, prompt: choosePrompt(input), schema: chooseSchema(input.candidates), answer: CHOOSE_TOOL, ...(this.options.signal ? { signal: this.options.signal } : {}) });
      const { backend, model, price_per_mtok } = client.endpoint;
      usage = { backend, model: answer.model || model, calls: 1, ...answer.usage, cost_usd: costOf(answer.usage, price_per_mtok) };
      const { template_id: id, reason } = (answer.json ?? {}) as { template_id?: unknown; reason?: unknown };
      const why = typeof reason === 'string' && reason.trim() ? ` ${reason.trim()}` : '';
      const label = client.endpoint.label;
      if (id === null) return { template_id: null, method: 'vlm_none', reason_code: 'none_fits', reason: `The ${label} found that none of ${input.candidates.map((c) => c.name).join(', ')} fits.${why}`, usage };
      const chosen = input.candidates.find((c) => c.template_id === id);
      if (!chosen) return this.fallback(input, label, `it answered ${JSON.stringify(id)}, which is not one of the candidates`, usage);
      return { template_id: chosen.template_id, method: 'vlm', reason: `The ${label} chose ${chosen.name} among ${input.candidates.map((c) => c.name).join(', ')}.${why}`, usage };
    } catch (err) {
      if (this.options.signal?.aborted) throw err;
      // An answer that could not be used (not JSON, a refusal) was billed all the same.
      if (err instanceof ModelCallError && err.answered?.usage && client) {
        const { backend, model, price_per_mtok } = client.endpoint;
        usage = { backend, model, calls: 1, ...err.answered.usage, cost_usd: costOf(err.answered.usage, price_per_mtok) };
      }
      const what = err instanceof ModelCallError ? `${err.status ? `HTTP ${err.status}` : 'no answer'}: ${err.detail}` : (err as Error).message;
      return this.fallback(input, client?.endpoint.label ?? 'vlm endpoint', hideSecrets(what, client?.endpoint.credentials ?? {}), usage);
    }
  }

  /** The embedded decision, with why the model did not make it. */
  private async fallback(input: ChooserInput, label: string, why: string, usage: ModelUsage | undefined): Promise<Choice> {
    const embedded = await embeddedChooser.choose(input);
    const base = embedded.reason ?? `${input.candidates.map((c) => `${c.name} (${c.score})`).join(' and ')} are within the margin ${input.margin}; neither is a clear winner.`;
    return { ...embedded, reason: `${base} The ${label} could not settle it (${why}), so the embedded decision stands.`, ...(usage ? { usage } : {}) };
  }
}
