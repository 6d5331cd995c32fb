// The forge loop: propose → score on the samples → record, until the score stops improving, the
// proposer has nothing more to try, or a limit (iterations, dollars, wall time, the tenant's
// monthly quotas) is reached. Limits are checked before every iteration, so the iteration that
// crosses a spending limit is the last one. `checkpoint` runs before every iteration too: an
// abort or a lost lease stops the loop there.
import type { ForgeProposer, Proposal } from './proposer.js';
import { type Evaluation, type ForgeSample, evaluate } from './score.js';

export interface ForgeLimitsIn {
  maxIterations: number;
  maxDollars: number;
  /** Wall-clock deadline (ms since epoch). */
  deadline: number;
  /** What is left of the tenant's monthly forge quotas (absent: no quota applies). */
  quota?: { tokens: number; dollars: number };
}

export interface IterationOut {
  number: number;
  proposal: Proposal;
  evaluation: Evaluation;
}

export type StopReason =
  | 'no_improvement'
  | 'perfect_score'
  | 'nothing_to_try'
  | 'max_iterations'
  | 'max_dollars'
  | 'max_wall_seconds'
  | 'forge_monthly_token_quota'
  | 'forge_monthly_dollar_quota';

export interface ForgeRunResult {
  best: IterationOut | null;
  iterations: number;
  stopReason: StopReason;
  tokens: number;
  dollars: number;
}

function limitReached(limits: ForgeLimitsIn, number: number, spent: { tokens: number; dollars: number }): StopReason | null {
  if (number > limits.maxIterations) return 'max_iterations';
  if (Date.now() >= limits.deadline) return 'max_wall_seconds';
  if (spent.dollars >= limits.maxDollars) return 'max_dollars';
  if (limits.quota && spent.tokens >= limits.quota.tokens) return 'forge_monthly_token_quota';
  if (limits.quota && spent.dollars >= limits.quota.dollars) return 'forge_monthly_dollar_quota';
  return null;
}

export async function runForge(
  samples: ForgeSample[],
  hint: string | null,
  proposer: ForgeProposer,
  limits: ForgeLimitsIn,
  hooks: { checkpoint: () => Promise<void>; onIteration: (it: IterationOut, isBest: boolean) => Promise<void>; signal?: AbortSignal },
): Promise<ForgeRunResult> {
  let best: IterationOut | null = null;
  let last: IterationOut | null = null;
  const spent = { tokens: 0, dollars: 0 };
  const end = (iterations: number, stopReason: StopReason): ForgeRunResult => ({ best, iterations, stopReason, ...spent });
  for (let number = 1; ; number++) {
    const limit = limitReached(limits, number, spent);
    if (limit) return end(number - 1, limit);
    await hooks.checkpoint();
    // A model call in flight when the wall-clock limit passes is abandoned there.
    const deadline = AbortSignal.timeout(Math.max(1, limits.deadline - Date.now()));
    const signal = hooks.signal ? AbortSignal.any([hooks.signal, deadline]) : deadline;
    let proposal: Proposal | null;
    try {
      proposal = await proposer.propose({ samples, hint, iteration: number, previous: last ? { candidate: last.proposal.candidate, evaluation: last.evaluation } : null, signal });
    } catch (err) {
      if (deadline.aborted && !hooks.signal?.aborted) return end(number - 1, 'max_wall_seconds');
      throw err;
    }
    if (!proposal) return end(number - 1, 'nothing_to_try');
    spent.tokens += proposal.tokens;
    spent.dollars += proposal.dollars;
    const it: IterationOut = { number, proposal, evaluation: evaluate(proposal.candidate, samples) };
    const improved = !best || it.evaluation.scores.overall > best.evaluation.scores.overall;
    await hooks.onIteration(it, improved);
    if (!improved) return end(number, 'no_improvement');
    best = it;
    last = it;
    // Nothing left to gain: no further call is paid for.
    if (it.evaluation.scores.overall >= 1) return end(number, 'perfect_score');
  }
}
