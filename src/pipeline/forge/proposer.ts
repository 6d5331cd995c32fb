// The seam of the forge loop: a ForgeProposer proposes the next candidate template from the samples
// and the last candidate's scores and disagreements. The deterministic proposer needs no model; a
// model-driven proposer (a forge endpoint: the model edits the template as a tool call) implements
// the same interface and reports the tokens and dollars each proposal cost.
import type { Evaluation, ForgeCandidate, ForgeSample } from './score.js';

export interface ProposerContext {
  samples: ForgeSample[];
  hint: string | null;
  iteration: number;
  previous: { candidate: ForgeCandidate; evaluation: Evaluation } | null;
  /** Aborts a proposal in flight (the run's wall-clock deadline, a worker shutting down). */
  signal?: AbortSignal;
}

/** What a model-driven proposal spent, as the tenant's monthly model usage records it. */
export interface ProposalUsage {
  backend: string;
  model: string;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

export interface Proposal {
  candidate: ForgeCandidate;
  notes: string;
  tokens: number;
  dollars: number;
  usage?: ProposalUsage;
}

export interface ForgeProposer {
  readonly name: string;
  /** The next candidate, or null when the proposer has nothing better to try. */
  propose(ctx: ProposerContext): Promise<Proposal | null>;
}
