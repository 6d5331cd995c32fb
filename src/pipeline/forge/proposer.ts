// The seam of the forge loop: a ForgeProposer proposes the next candidate template from the samples
// and the last candidate's scores and disagreements. The deterministic proposer needs no model; a
// model-driven proposer (a forge endpoint: the model edits the template as a tool call) implements
// the same interface and reports the tokens and dollars each proposal cost.
import type { Evaluation, ForgeCandidate, ForgeSample } from './score.js';
import type { ModelUsage } from '../model-usage.js';

export interface ProposerContext {
  samples: ForgeSample[];
  hint: string | null;
  iteration: number;
  previous: { candidate: ForgeCandidate; evaluation: Evaluation } | null;
  /** Aborts a proposal in flight (the run's wall-clock deadline, a worker shutting down). */
  signal?: AbortSignal;
}

export interface Proposal {
  candidate: ForgeCandidate;
  notes: string;
  tokens: number;
  dollars: number;
  usage?: ModelUsage;
}

export interface ForgeProposer {
  readonly name: string;
  /** The next candidate, or null when the proposer has nothing better to try. */
  propose(ctx: ProposerContext): Promise<Proposal | null>;
}
