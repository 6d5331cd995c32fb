// The forge loop: propose → score on the samples → record, until the score stops improving, the
// proposer has nothing more to try, or a limit (iterations, dollars, wall time) is reached.
// `checkpoint` runs before every iteration: an abort or a lost lease stops the loop there.
import type { ForgeProposer, Proposal } from './proposer.js';
import { type Evaluation, type ForgeSample, evaluate } from './score.js';

export interface ForgeLimitsIn {
  maxIterations: number;
  maxDollars: number;
  /** Wall-clock deadline (ms since epoch). */
  deadline: number;
}

export interface IterationOut {
  number: number;
  proposal: Proposal;
  evaluation: Evaluation;
}

export interface ForgeRunResult {
  best: IterationOut | null;
  iterations: number;
  stopReason: 'no_improvement' | 'nothing_to_try' | 'max_iterations' | 'max_dollars' | 'max_wall_seconds';
}

export async function runForge(
  samples: ForgeSample[],
  hint: string | null,
  proposer: ForgeProposer,
  limits: ForgeLimitsIn,
  hooks: { checkpoint: () => Promise<void>; onIteration: (it: IterationOut, isBest: boolean) => Promise<void> },
): Promise<ForgeRunResult> {
  let best: IterationOut | null = null;
  let last: IterationOut | null = null;
  let dollars = 0;
  for (let number = 1; ; number++) {
    if (number > limits.maxIterations) return { best, iterations: number - 1, stopReason: 'max_iterations' };
    if (Date.now() >= limits.deadline) return { best, iterations: number - 1, stopReason: 'max_wall_seconds' };
    if (dollars >= limits.maxDollars) return { best, iterations: number - 1, stopReason: 'max_dollars' };
    await hooks.checkpoint();
    const proposal = await proposer.propose({ samples, hint, iteration: number, previous: last ? { candidate: last.proposal.candidate, evaluation: last.evaluation } : null });
    if (!proposal) return { best, iterations: number - 1, stopReason: 'nothing_to_try' };
    dollars += proposal.dollars;
    const it: IterationOut = { number, proposal, evaluation: evaluate(proposal.candidate, samples) };
    const improved = !best || it.evaluation.scores.overall > best.evaluation.scores.overall;
    await hooks.onIteration(it, improved);
    if (!improved) return { best, iterations: number, stopReason: 'no_improvement' };
    best = it;
    last = it;
  }
}
