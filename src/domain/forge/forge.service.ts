// The template forge (decisions.md "Templates, drafts, forge"): submit (checked against the
// tenant's forge_* policy and monthly quotas), read, list, iterations, abort, promote.
// The forge endpoint of a job: `endpoint_id` names one of the tenant's; left out, the tenant's
// default forge endpoint (is_default_for_tenant) runs it when there is one; `null` asks for the
// deterministic forge.
import type { Db } from '../../db/database.js';
import type { ForgeIterationRow, ForgeJobRow, ForgeStatus } from '../../db/classification-schema.js';
import { conflict, forbidden, notFound, tooManyRequests, validationError, type ValidationItem } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { PageRequest } from '../../lib/pagination.js';
import { notifyQueued } from '../../queue/notify.js';
import { findJob } from '../documents/jobs.repository.js';
import { noCanonicalOutput } from '../documents/no-canonical.js';
import type { Principal } from '../identity/principal.js';
import type { EffectivePolicy } from '../policy/policy.registry.js';
import type { ForgeEndpointRow } from '../../db/endpoints-schema.js';
import { forgeEndpointOfJob } from '../endpoints/forge-endpoints.service.js';
import { createTemplateIn, updateTemplateIn } from '../templates/templates.service.js';
import { findIteration, findForgeJob, insertForgeJob, listForgeJobs, listIterations, lockForgeJob, monthSpend, setForgeStatus } from './forge.repository.js';

export interface ForgeSubmit {
  sample_job_ids: string[];
  hint?: string | null;
  expected_outputs?: Record<string, Record<string, unknown>> | null;
  endpoint_id?: string | null;
  max_iterations?: number;
  max_dollars?: number;
  max_wall_seconds?: number;
}

const actorOf = (p: Principal) => p.userId ?? p.apiKeyId;

export function presentForgeJob(row: ForgeJobRow) {
  return {
    id: row.id,
    status: row.status,
    sample_job_ids: row.sample_job_ids,
    hint: row.hint,
    endpoint_id: row.endpoint_id,
    limits: row.limits,
    iterations_count: row.iterations_count,
    best_iteration_id: row.best_iteration_id,
    best_score: row.best_score,
    tokens: Number(row.tokens),
    dollars: row.dollars,
    promoted_template_id: row.promoted_template_id,
    failure_message: row.failure_message,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentIteration(row: ForgeIterationRow) {
  const candidate = row.candidate as { json_schema: Record<string, unknown>; validation_rules: Record<string, unknown>[]; prompt_overlay: string };
  const scores = row.scores as { overall: number; field_coverage: number; validation_pass_rate: number; expected_agreement: number };
  return { id: row.id, forge_job_id: row.forge_job_id, number: row.number, candidate, scores, tokens: Number(row.tokens), dollars: row.dollars, notes: row.notes, created_at: row.created_at };
}

function secondsToNextMonth(): number {
  const now = new Date();
  return (Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - now.getTime()) / 1000;
}

/**
 * Each asked limit within the tenant's cap (422 naming the policy field). An absent one takes the
 * forge endpoint's default (default_max_turns, default_max_budget_usd) within the cap, else the cap.
 */
function limitsOf(body: ForgeSubmit, policy: EffectivePolicy, endpoint: ForgeEndpointRow | null) {
  const items: ValidationItem[] = [];
  const cap = (field: 'max_iterations' | 'max_dollars' | 'max_wall_seconds', policyField: keyof EffectivePolicy, endpointDefault: number | null = null) => {
    const limit = Number(policy[policyField]);
    const asked = body[field];
    if (asked !== undefined && asked > limit) items.push({ loc: ['body', field], msg: `Exceeds the tenant's ${policyField} (${limit})`, type: 'less_than_equal', input: asked, ctx: { le: limit, policy_field: policyField } });
    return asked ?? (endpointDefault !== null ? Math.min(endpointDefault, limit) : limit);
  };
  const turns = endpoint?.default_max_turns != null ? Math.max(1, Math.floor(endpoint.default_max_turns)) : null;
  const limits = {
    max_iterations: cap('max_iterations', 'forge_per_job_max_iterations', turns),
    max_dollars: cap('max_dollars', 'forge_per_job_max_dollars', endpoint?.default_max_budget_usd ?? null),
    max_wall_seconds: cap('max_wall_seconds', 'forge_per_job_max_wall_seconds'),
  };
  return { limits, items };
}

export async function submitForgeJob(db: Db, p: Principal, policy: EffectivePolicy, body: ForgeSubmit) {
  if (!policy.forge_enabled) throw forbidden('forge_disabled', "The template forge is switched off for this tenant (policy forge_enabled is false). An admin can switch it on in the tenant policy.");
  const endpoint = await forgeEndpointOfJob(db, p.tenantId, body.endpoint_id);
  const { limits, items } = limitsOf(body, policy, endpoint);
  const samples = new Set(body.sample_job_ids);
  // A sample named twice would count twice in every "present in half the samples" vote.
  body.sample_job_ids.forEach((id, i) => {
    const first = body.sample_job_ids.indexOf(id);
    if (first !== i) items.push({ loc: ['body', 'sample_job_ids', i], msg: `Job ${id} is already sample_job_ids[${first}]; name each sample once`, type: 'value_error', input: id });
  });
  for (const id of Object.keys(body.expected_outputs ?? {})) {
    if (!samples.has(id)) items.push({ loc: ['body', 'expected_outputs', id], msg: 'Expected outputs must name one of sample_job_ids', type: 'value_error', input: id });
  }
  if (items.length) throw validationError(items);
  const spend = await monthSpend(db, p.tenantId);
  if (policy.forge_monthly_token_quota <= 0 || spend.tokens >= policy.forge_monthly_token_quota) {
    throw tooManyRequests('forge_quota_exceeded', `The tenant's monthly forge token quota (forge_monthly_token_quota ${policy.forge_monthly_token_quota}) is used up (${spend.tokens} tokens this month). It resets at the start of next month (UTC), or an admin can raise it.`, secondsToNextMonth());
  }
  if (policy.forge_monthly_dollar_quota <= 0 || spend.dollars >= policy.forge_monthly_dollar_quota) {
    throw tooManyRequests('forge_quota_exceeded', `The tenant's monthly forge dollar quota (forge_monthly_dollar_quota ${policy.forge_monthly_dollar_quota}) is used up ($${spend.dollars.toFixed(2)} this month). It resets at the start of next month (UTC), or an admin can raise it.`, secondsToNextMonth());
  }
  const documents = new Map<string, number>();
  for (const [i, id] of body.sample_job_ids.entries()) {
    const job = await findJob(db, p.tenantId, id);
    if (!job || job.deleted_at) throw notFound(`Job ${id}`);
    if (!(job.result as { canonical?: unknown } | null)?.canonical) {
      throw noCanonicalOutput(job, `Sample job ${id} (sample_job_ids[${i}])`);
    }
    // Two jobs of the same file are one sample, not two.
    const twin = documents.get(job.sha256);
    if (twin !== undefined) {
      throw validationError([{ loc: ['body', 'sample_job_ids', i], msg: `Job ${id} is of the same document (sha256) as sample_job_ids[${twin}]; each sample must be a different document`, type: 'value_error', input: id }]);
    }
    documents.set(job.sha256, i);
  }
  return db.transaction().execute(async (tx) => {
    const row = await insertForgeJob(tx, p.tenantId, {
      id: newId('fgj'),
      sample_job_ids: [...samples],
      hint: body.hint ?? null,
      expected_outputs: body.expected_outputs ?? null,
      endpoint_id: endpoint?.id ?? null,
      limits,
      created_by: actorOf(p),
    });
    await notifyQueued(tx);
    return presentForgeJob(row);
  });
}

async function forgeJobOr404(db: Db, p: Principal, id: string) {
  const row = await findForgeJob(db, p.tenantId, id);
  if (!row) throw notFound(`Forge job ${id}`);
  return row;
}

export async function getForgeJob(db: Db, p: Principal, id: string) {
  return presentForgeJob(await forgeJobOr404(db, p, id));
}

export async function listForgeJobPage(db: Db, p: Principal, filters: { status?: ForgeStatus }, page: PageRequest) {
  const result = await listForgeJobs(db, p.tenantId, filters, page);
  return { items: result.items.map(presentForgeJob), next_cursor: result.next_cursor };
}

export async function listIterationPage(db: Db, p: Principal, id: string, page: PageRequest) {
  await forgeJobOr404(db, p, id);
  const result = await listIterations(db, p.tenantId, id, page);
  return { items: result.items.map(presentIteration), next_cursor: result.next_cursor };
}

export async function getIteration(db: Db, p: Principal, id: string, iterationId: string) {
  await forgeJobOr404(db, p, id);
  const row = await findIteration(db, p.tenantId, id, iterationId);
  if (!row) throw notFound(`Iteration ${iterationId}`);
  return presentIteration(row);
}

/** Queued: aborted at once. Running: stops at its next checkpoint. Finished: 409. */
export async function abortForgeJob(db: Db, p: Principal, id: string) {
  return db.transaction().execute(async (tx) => {
    const row = await lockForgeJob(tx, p.tenantId, id);
    if (!row) throw notFound(`Forge job ${id}`);
    if (row.status === 'queued') return presentForgeJob(await setForgeStatus(tx, p.tenantId, id, { status: 'aborted', failure_message: 'Aborted at your request before it started.', finished: true }));
    if (row.status === 'running') return presentForgeJob(await setForgeStatus(tx, p.tenantId, id, { abort_requested: true }));
    throw conflict('forge_job_finished', `Forge job ${id} is ${row.status}; only a queued or running forge job can be aborted.`);
  });
}

/**
 * The best iteration becomes a new template (`name`, or with neither field one named after the
 * forge job: "forged-fgj_…", free since a job is promoted once) or the next version of `template_id`.
 */
export async function promoteForgeJob(db: Db, p: Principal, id: string, body: { name?: string; template_id?: string }) {
  if (body.name && body.template_id) {
    throw validationError([{ loc: ['body', 'template_id'], msg: 'Send `name` for a new template or `template_id` for a new version of an existing one, not both', type: 'value_error', input: body.template_id }]);
  }
  return db.transaction().execute(async (tx) => {
    const row = await lockForgeJob(tx, p.tenantId, id);
    if (!row) throw notFound(`Forge job ${id}`);
    if (row.status !== 'succeeded' || !row.best_iteration_id) {
      throw conflict('forge_job_not_promotable', `Forge job ${id} is ${row.status}; only a succeeded forge job can be promoted.`);
    }
    const best = await findIteration(tx, p.tenantId, id, row.best_iteration_id);
    if (!best) throw conflict('forge_job_not_promotable', `Forge job ${id} has no recorded best iteration to promote.`);
    const candidate = best.candidate as { json_schema: Record<string, unknown>; validation_rules: Record<string, unknown>[]; prompt_overlay?: string };
    const content = { json_schema: candidate.json_schema, validation_rules: candidate.validation_rules, prompt_overlay: candidate.prompt_overlay ?? '' };
    let template;
    if (body.template_id) {
      const current = await tx.selectFrom('templates').select(['name', 'description']).where('tenant_id', '=', p.tenantId).where('id', '=', body.template_id).where('deleted_at', 'is', null).executeTakeFirst();
      if (!current) throw notFound(`Template ${body.template_id}`);
      template = await updateTemplateIn(tx, p, body.template_id, { name: current.name, description: current.description, ...content });
    } else {
      template = await createTemplateIn(tx, p, { name: body.name ?? `forged-${id}`, description: `Forged from ${row.sample_job_ids.length} sample(s) (forge job ${id}).`, ...content });
    }
    await setForgeStatus(tx, p.tenantId, id, { status: 'promoted', promoted_template_id: template.id });
    return template;
  });
}
