// One run of one claimed forge job: load the samples' canonical output, run the forge loop with a
// checkpoint (heartbeat + abort flag) before every iteration, record each iteration, settle.
// A job naming a forge endpoint runs the model-driven proposer, within its own limits and what
// is left of the tenant's monthly forge quotas.
import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import type { ForgeJobRow } from '../db/classification-schema.js';
import { findJob } from '../domain/documents/jobs.repository.js';
import { monthSpend } from '../domain/forge/forge.repository.js';
import type { EffectivePolicy } from '../domain/policy/policy.registry.js';
import type { CanonicalJson } from '../pipeline/index.js';
import { DeterministicProposer } from '../pipeline/forge/deterministic.js';
import type { ForgeProposer } from '../pipeline/forge/proposer.js';
import { type ForgeLimitsIn, type ForgeRunResult, runForge } from '../pipeline/forge/run-forge.js';
import type { ForgeSample } from '../pipeline/forge/score.js';
import { ABORTED_MESSAGE, appendIterationNote, clearEarlierAttempts, forgeHeartbeat, recordIteration, recordUnusedSpend, settleForgeJob } from './forge-lease.js';
import { ForgeModelError } from '../models/forge/model-proposer.js';

export interface ForgeRunDeps {
  db: Db;
  log: Logger;
  leaseSeconds: number;
  /** The proposer for a job (a model-driven one when the job names a forge endpoint). */
  proposerFor?: (job: ForgeJobRow) => Promise<ForgeProposer>;
  /** The tenant's policy now: its monthly quotas cap a model-driven run. */
  policyOf?: (tenantId: string) => Promise<Pick<EffectivePolicy, 'forge_monthly_token_quota' | 'forge_monthly_dollar_quota'>>;
}

class Stop extends Error {
  constructor(readonly why: 'aborted' | 'lease_lost' | 'shutdown') {
    super(why);
  }
}

async function loadSamples(db: Db, job: ForgeJobRow): Promise<ForgeSample[]> {
  const expected = (job.expected_outputs ?? {}) as Record<string, Record<string, unknown>>;
  const samples: ForgeSample[] = [];
  for (const id of job.sample_job_ids) {
    const row = await findJob(db, job.tenant_id, id);
    const canonical = (row?.result as { canonical?: CanonicalJson } | null)?.canonical;
    if (!row || row.deleted_at || !canonical) throw new Error(`Sample job ${id} no longer has a canonical output (it was deleted or reprocessed). Submit the forge job again without it.`);
    samples.push({ job_id: id, canonical, expected: expected[id] ?? null });
  }
  return samples;
}

/** The job's limits, less what earlier attempts spent; a model run also within the month's quotas. */
async function limitsOf(deps: ForgeRunDeps, job: ForgeJobRow): Promise<ForgeLimitsIn> {
  const started = job.started_at ? new Date(job.started_at).getTime() : Date.now();
  const limits: ForgeLimitsIn = { maxIterations: job.limits.max_iterations, maxDollars: job.limits.max_dollars - Number(job.dollars), deadline: started + job.limits.max_wall_seconds * 1000 };
  if (!job.endpoint_id || !deps.policyOf) return limits;
  const [policy, spend] = await Promise.all([deps.policyOf(job.tenant_id), monthSpend(deps.db, job.tenant_id)]);
  return { ...limits, quota: { tokens: policy.forge_monthly_token_quota - spend.tokens, dollars: policy.forge_monthly_dollar_quota - spend.dollars } };
}

const LIMIT_NOTES: Partial<Record<ForgeRunResult['stopReason'], string>> = {
  max_iterations: 'Stopped: max_iterations reached.',
  max_dollars: 'Stopped: max_dollars reached.',
  max_wall_seconds: 'Stopped: max_wall_seconds reached.',
  forge_monthly_token_quota: "Stopped: the tenant's forge_monthly_token_quota is used up.",
  forge_monthly_dollar_quota: "Stopped: the tenant's forge_monthly_dollar_quota is used up.",
};

export async function runForgeJob(deps: ForgeRunDeps, job: ForgeJobRow, workerId: string, shutdown: AbortSignal): Promise<void> {
  const { db, log } = deps;
  const checkpoint = async () => {
    if (shutdown.aborted) throw new Stop('shutdown');
    const beat = await forgeHeartbeat(db, job.id, workerId, deps.leaseSeconds);
    if (!beat.held) throw new Stop('lease_lost');
    if (beat.abortRequested) throw new Stop('aborted');
  };
  try {
    if (job.attempts > 1 && !(await clearEarlierAttempts(db, job, workerId))) throw new Stop('lease_lost');
    const samples = await loadSamples(db, job);
    const proposer = deps.proposerFor ? await deps.proposerFor(job) : new DeterministicProposer();
    const result = await runForge(samples, job.hint, proposer, await limitsOf(deps, job), {
      checkpoint,
      signal: shutdown,
      onIteration: async (it, isBest) => {
        const ok = await recordIteration(db, job, workerId, {
          number: it.number,
          candidate: it.proposal.candidate as unknown as Record<string, unknown>,
          scores: it.evaluation.scores as unknown as Record<string, number>,
          tokens: it.proposal.tokens,
          dollars: it.proposal.dollars,
          notes: `${it.proposal.notes}${it.evaluation.disagreements.length ? ` ${it.evaluation.disagreements.length} disagreement(s) with the expected outputs: ${it.evaluation.disagreements.slice(0, 5).map((d) => `${d.field} on ${d.job_id}`).join(', ')}.` : ''}`,
          isBest,
          ...(it.proposal.usage ? { usage: it.proposal.usage } : {}),
        });
        if (!ok) throw new Stop('lease_lost');
      },
    });
    const limitNote = LIMIT_NOTES[result.stopReason];
    if (limitNote && result.iterations > 0) await appendIterationNote(db, job, workerId, result.iterations, limitNote);
    await checkpoint();
    if (!result.best) await settleForgeJob(db, job, workerId, 'failed', limitNote ? `${limitNote} No candidate was proposed before it.` : 'The forge produced no candidate from these samples. Add samples that have key-value pairs or tables, or a hint.');
    else await settleForgeJob(db, job, workerId, 'succeeded');
    log.info({ forgeJobId: job.id, tenantId: job.tenant_id, iterations: result.iterations, stop: result.stopReason, best: result.best?.evaluation.scores.overall }, 'forge job settled');
  } catch (caught) {
    // A model call cut short by the worker shutting down is a shutdown, not the job's failure.
    const err = !(caught instanceof Stop) && shutdown.aborted ? new Stop('shutdown') : caught;
    if (err instanceof Stop) {
      if (err.why === 'aborted') await settleForgeJob(db, job, workerId, 'aborted', ABORTED_MESSAGE);
      else if (err.why === 'shutdown') {
        // Back to the queue without counting the attempt: another worker picks it up.
        await db.updateTable('forge_jobs').set({ status: 'queued', lease_owner: null, lease_expires_at: null, attempts: job.attempts - 1 }).where('id', '=', job.id).where('lease_owner', '=', workerId).where('status', '=', 'running').execute();
      }
      return;
    }
    log.error({ err, forgeJobId: job.id }, 'forge job failed');
    if (err instanceof ForgeModelError && err.usage) await recordUnusedSpend(db, job, workerId, err.usage);
    await settleForgeJob(db, job, workerId, 'failed', (err as Error).message || 'The forge failed unexpectedly. Submit the forge job again.');
  }
}
