// The model-driven forge: a forge endpoint proposes the template as a tool call, Quire scores it
// on the samples (pipeline/forge/score.ts) and the next call carries the scores and the
// disagreements back, so the model refines its own candidate. Each call is stateless: the last
// candidate and its feedback travel in the prompt, so a forge run resumed by another worker asks
// the same question. An answer that is not a usable template is asked once more with its problems.
import { checkJsonSchema, checkRules } from '../../domain/templates/template-check.js';
import type { ForgeProposer, Proposal, ProposerContext } from '../../pipeline/forge/proposer.js';
import type { ForgeCandidate } from '../../pipeline/forge/score.js';
import { hideSecrets } from '../backends/errors.js';
import { ModelCallError } from '../backends/errors.js';
import type { ModelAnswer, ModelClient } from '../backends/types.js';
import type { ModelUsage } from '../../pipeline/model-usage.js';
import { costOf } from '../extraction/extract.js';
import { CANDIDATE_SCHEMA, PROPOSE_TOOL, systemPrompt, userPrompt } from './prompt.js';

/**
 * A forge run's model failure: the job fails with this message (names the endpoint, never a
 * secret). `usage` is what the answers that came but could not be used were billed: the job and
 * the tenant's month still count it.
 */
export class ForgeModelError extends Error {
  constructor(
    message: string,
    readonly usage: ModelUsage | null = null,
  ) {
    super(message);
  }
}

interface Read {
  candidate: ForgeCandidate | null;
  notes: string;
  problems: string[];
  dropped: string[];
}

/** The model's answer as a candidate: the schema must be usable; rules that are not are dropped. */
export function readCandidate(json: unknown): Read {
  const a = (json && typeof json === 'object' ? json : {}) as Record<string, unknown>;
  const notes = typeof a.notes === 'string' ? a.notes.trim() : '';
  const schema = a.json_schema && typeof a.json_schema === 'object' && !Array.isArray(a.json_schema) ? (a.json_schema as Record<string, unknown>) : null;
  if (!schema) return { candidate: null, notes, problems: ['json_schema is missing or not an object'], dropped: [] };
  const schemaProblems = checkJsonSchema(schema, ['json_schema']);
  if (schemaProblems.length) return { candidate: null, notes, problems: schemaProblems.map((p) => `${p.loc.join('.')}: ${p.msg}`), dropped: [] };
  const rules = Array.isArray(a.validation_rules) ? a.validation_rules.filter((r): r is Record<string, unknown> => !!r && typeof r === 'object' && !Array.isArray(r)) : [];
  const bad = new Map<number, string>();
  for (const p of checkRules(rules, schema, [])) if (!bad.has(p.loc[0] as number)) bad.set(p.loc[0] as number, `${p.loc.slice(1).join('.') || 'rule'}: ${p.msg}`);
  const kept = rules.filter((_, i) => !bad.has(i));
  const dropped = [...bad].map(([i, why]) => `rule ${i} (${String(rules[i]?.kind)}): ${why}`);
  return { candidate: { json_schema: schema, validation_rules: kept, prompt_overlay: typeof a.prompt_overlay === 'string' ? a.prompt_overlay : '' }, notes, problems: [], dropped };
}

export class ModelForgeProposer implements ForgeProposer {
  readonly name: string;

  constructor(private readonly client: ModelClient) {
    this.name = `model:${client.endpoint.backend}`;
  }

  async propose(ctx: ProposerContext): Promise<Proposal> {
    const endpoint = this.client.endpoint;
    const usage = { backend: endpoint.backend, model: endpoint.model, calls: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 };
    const count = (billed: { input_tokens: number; output_tokens: number }, model: string | null) => {
      usage.calls++;
      usage.input_tokens += billed.input_tokens;
      usage.output_tokens += billed.output_tokens;
      usage.model = model || usage.model;
      usage.cost_usd = costOf(usage, endpoint.price_per_mtok);
    };
    const spent = () => (usage.calls ? { ...usage } : null);
    let corrections: string[] = [];
    for (let round = 0; round < 2; round++) {
      let answer: ModelAnswer;
      try {
        answer = await this.client.extract({
          images: [],
          system: systemPrompt(),
          prompt: userPrompt(ctx.samples, ctx.hint, ctx.iteration, ctx.previous, corrections),
          schema: CANDIDATE_SCHEMA,
          answer: PROPOSE_TOOL,
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        });
      } catch (err) {
        if (!(err instanceof ModelCallError)) throw err;
        // An answer that came but was no tool call was billed all the same.
        if (err.answered?.usage) count(err.answered.usage, null);
        const status = err.status ? `HTTP ${err.status}` : 'no answer';
        throw new ForgeModelError(hideSecrets(`The ${err.label} failed: ${status} (${err.detail}) after ${err.attempts} attempt${err.attempts === 1 ? '' : 's'}. ${forgeAdvice(err.status)}`, endpoint.credentials), spent());
      }
      count(answer.usage, answer.model);
      const read = readCandidate(answer.json);
      if (read.candidate) {
        const notes = [`${endpoint.label} (${usage.model}): ${read.notes || 'no note given'}`];
        if (round) notes.push('Asked once more: the first answer was not a usable template.');
        if (read.dropped.length) notes.push(`Dropped ${read.dropped.length} rule(s) Quire cannot run: ${read.dropped.join('; ')}.`);
        return { candidate: read.candidate, notes: notes.join(' '), tokens: usage.input_tokens + usage.output_tokens, dollars: usage.cost_usd, usage };
      }
      corrections = read.problems;
    }
    throw new ForgeModelError(
      hideSecrets(`The ${endpoint.label} answered twice with a template Quire cannot use (${corrections.slice(0, 3).join('; ')}). Use a model that supports tool calls with a JSON schema, then submit the forge job again.`, endpoint.credentials),
      spent(),
    );
  }
}

function forgeAdvice(status: number | null): string {
  if (status !== null && status < 300) return 'The model answered, but not with the tool call asked for; use a model that supports tool calls, then submit the forge job again.';
  if (status === 401 || status === 403) return "Check the forge endpoint's credentials, then submit the forge job again.";
  if (status === 404) return "Check the forge endpoint's model name and base URL, then submit the forge job again.";
  if (status === 429) return 'The model provider is rate-limiting this account; submit the forge job again later.';
  if (status === null) return 'Check that the forge endpoint is reachable from Quire, then submit the forge job again.';
  return 'The model provider refused or failed the request; submit the forge job again later, or use another forge endpoint.';
}
