// Template drafts (decisions.md "Templates, drafts, forge"): proposed on a classification miss or
// from job ids, then patched, rejected (DELETE keeps the record) or accepted (template version 1).
// Only a pending draft changes: accept or patch of any other is 409.
import { sql } from 'kysely';
import type { Db, Tx } from '../../db/database.js';
import type { DraftRow, DraftStatus } from '../../db/classification-schema.js';
import type { Job } from '../../db/documents-schema.js';
import { conflict, notFound, validationError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { PageRequest } from '../../lib/pagination.js';
import { type DraftProposal, type Fingerprint, likeness } from '../../pipeline/classify/index.js';
import { commonSchema, proposeDraft } from '../../pipeline/classify/draft-schema.js';
import { runEntities } from '../../pipeline/extract/index.js';
import { documentOfJob, fingerprintOfDocument } from '../classification/classification.service.js';
import { upsertExemplar } from '../classification/exemplars.repository.js';
import { findJob } from '../documents/jobs.repository.js';
import { noCanonicalOutput } from '../documents/no-canonical.js';
import type { Principal } from '../identity/principal.js';
import { createTemplateIn, templateContent } from '../templates/templates.service.js';
import { type DraftChanges, autoDraftsToCompare, findDraft, insertDraft, listDrafts, lockDraft, namesStartingWith, recordSeen, resolveDraft, updateDraft } from './drafts.repository.js';

/** A miss this alike to a pending draft's document raises that draft's auto_seen_count instead. */
export const DRAFT_SIMILARITY_THRESHOLD = 0.6;
export const DRAFT_PROPOSER = 'quire:draft_on_miss';

/** interface.md DraftResponse: its optional fields are strings when set and left out when not. */
export function presentDraft(row: DraftRow) {
  const optional = {
    proposed_by: row.proposed_by,
    proposed_from_hint: row.proposed_from_hint,
    proposed_description: row.proposed_description,
    prompt_overlay: row.prompt_overlay,
    drafter_notes: row.drafter_notes,
    accepted_as_template_id: row.accepted_as_template_id,
    resolved_at: row.resolved_at,
    resolved_by: row.resolved_by,
  };
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    proposed_from_job_ids: row.proposed_from_job_ids,
    auto_seen_count: row.auto_seen_count,
    proposed_name: row.proposed_name,
    json_schema: row.json_schema,
    validation_rules: row.validation_rules,
    field_examples: row.field_examples,
    status: row.status,
    created_at: row.created_at,
    ...(Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== null && v !== undefined)) as Partial<{ [K in keyof typeof optional]: NonNullable<(typeof optional)[K]> }>),
  };
}

const actorOf = (p: Principal) => p.userId ?? p.apiKeyId;

/**
 * A proposed name no live template and no other pending draft of the tenant has: the name
 * itself, else the name with the first free "-2", "-3" … So two drafts of one kind and sender
 * (two layouts of one shop's receipts) can both be accepted without a name taken (409).
 */
async function freeDraftName(db: Db | Tx, tenantId: string, name: string): Promise<string> {
  const taken = await namesStartingWith(db, tenantId, name);
  if (!taken.has(name)) return name;
  for (let n = 2; ; n++) if (!taken.has(`${name}-${n}`)) return `${name}-${n}`;
}
const notPending = (row: DraftRow, action: string) =>
  conflict('draft_not_pending', `Draft ${row.id} is ${row.status}; only a pending draft can be ${action}. Create a new draft from its jobs instead.`);

/**
 * A document no template matched: raise the most similar pending draft's auto_seen_count, or
 * propose a new draft from the document (`proposal`, made beside its fingerprint). A document
 * most like a rejected draft proposes nothing: rejecting a draft says that kind of document needs
 * no template. Returns the draft and whether it was new.
 */
export async function proposeOnMiss(db: Db, job: Pick<Job, 'id' | 'tenant_id'>, fingerprint: Fingerprint, proposal: DraftProposal) {
  // One tenant's misses are compared and proposed one at a time: two similar documents missing
  // at once (a batch on several workers) would otherwise both find no draft and propose two.
  return db.transaction().execute(async (tx) => {
    await lockTenantDrafts(tx, job.tenant_id);
    return proposeOnMissIn(tx, job, fingerprint, proposal);
  });
}

/**
 * Serialises, per tenant, the steps that look at the pending drafts and then add one: a miss's
 * comparison and proposal, and the choice of a free name. Held to the end of the transaction.
 */
async function lockTenantDrafts(tx: Tx, tenantId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext('quire.draft_on_miss'), hashtext(${tenantId}))`.execute(tx);
}

async function proposeOnMissIn(db: Tx, job: Pick<Job, 'id' | 'tenant_id'>, fingerprint: Fingerprint, proposal: DraftProposal) {
  let best: { row: DraftRow; score: number } | null = null;
  for (const row of await autoDraftsToCompare(db, job.tenant_id)) {
    const score = likeness(fingerprint, row.fingerprint as unknown as Fingerprint).score;
    if (score >= DRAFT_SIMILARITY_THRESHOLD && (!best || score > best.score || (score === best.score && row.status === 'pending'))) best = { row, score };
  }
  if (best?.row.status === 'rejected') return { draft: best.row, created: false, similarity: best.score };
  if (best) {
    if (best.row.proposed_from_job_ids.includes(job.id)) return { draft: best.row, created: false, similarity: best.score };
    const seen = await recordSeen(db, job.tenant_id, best.row.id, job.id);
    if (seen) return { draft: seen, created: false, similarity: best.score };
  }
  const draft = await insertDraft(db, job.tenant_id, {
    id: newId('drf'),
    proposed_by: DRAFT_PROPOSER,
    proposed_from_job_ids: [job.id],
    proposed_from_hint: null,
    auto_seen_count: 1,
    proposed_name: await freeDraftName(db, job.tenant_id, proposal.name),
    proposed_description: proposal.description,
    json_schema: proposal.json_schema,
    prompt_overlay: null,
    validation_rules: [],
    field_examples: proposal.field_examples,
    drafter_notes: `${proposal.notes} Proposed because no active template matched job ${job.id}.`,
    fingerprint: fingerprint as unknown as Record<string, unknown>,
  });
  return { draft, created: true, similarity: null };
}

export interface DraftCreate {
  job_ids: string[];
  hint?: string | null;
  name?: string;
}

/** A draft from one or more finished jobs: the fields at least half of their documents have. */
export async function createDraft(db: Db, p: Principal, body: DraftCreate) {
  // A job named twice, or two jobs of one file, would count twice in "half of the documents".
  const twice = body.job_ids.findIndex((id, i) => body.job_ids.indexOf(id) !== i);
  if (twice >= 0) {
    throw validationError([{ loc: ['body', 'job_ids', twice], msg: `Job ${body.job_ids[twice]} is already job_ids[${body.job_ids.indexOf(body.job_ids[twice]!)}]; name each job once`, type: 'value_error', input: body.job_ids[twice] }]);
  }
  const proposals: { fingerprint: Fingerprint; proposal: ReturnType<typeof proposeDraft> }[] = [];
  const documents = new Map<string, number>();
  for (const [i, jobId] of body.job_ids.entries()) {
    const job = await findJob(db, p.tenantId, jobId);
    if (!job || job.deleted_at) throw notFound(`Job ${jobId}`);
    const doc = documentOfJob(job);
    if (!doc) throw noCanonicalOutput(job, `Job ${jobId} (job_ids[${i}])`);
    const twin = documents.get(job.sha256);
    if (twin !== undefined) {
      throw validationError([{ loc: ['body', 'job_ids', i], msg: `Job ${jobId} is of the same document (sha256) as job_ids[${twin}]; each job must be a different document`, type: 'value_error', input: jobId }]);
    }
    documents.set(job.sha256, i);
    const fingerprint = fingerprintOfDocument(doc);
    proposals.push({ fingerprint, proposal: proposeDraft(doc.canonical, (doc.entities ?? runEntities(doc.canonical, { generic_entities_enabled: true })) as never, fingerprint.title) });
  }
  const merged = commonSchema(proposals.map((x) => x.proposal.json_schema));
  const first = proposals[0]!;
  const examples = Object.fromEntries(merged.kept.map((k) => [k, proposals.find((x) => k in x.proposal.field_examples)?.proposal.field_examples[k] ?? null]));
  // The free name is chosen and taken under the tenant's draft lock: two drafts made at once
  // would otherwise both find the same name free.
  const row = await db.transaction().execute(async (tx) => {
    if (body.name === undefined) await lockTenantDrafts(tx, p.tenantId);
    return insertDraft(tx, p.tenantId, {
      id: newId('drf'),
      proposed_by: actorOf(p),
      proposed_from_job_ids: [...new Set(body.job_ids)],
      proposed_from_hint: body.hint ?? null,
      auto_seen_count: 0,
      // A name the caller gives stays as given: accepting it while a template has it is 409.
      proposed_name: body.name ?? (await freeDraftName(tx, p.tenantId, first.proposal.name)),
      proposed_description: first.proposal.description,
      json_schema: merged.json_schema,
      prompt_overlay: body.hint ?? null,
      validation_rules: [],
      field_examples: examples,
      drafter_notes: `Fields present in at least half of ${proposals.length} document(s): ${merged.kept.length} kept, ${merged.dropped.length} dropped.`,
      fingerprint: null,
    });
  });
  return presentDraft(row);
}

export async function getDraft(db: Db, p: Principal, id: string) {
  const row = await findDraft(db, p.tenantId, id);
  if (!row) throw notFound(`Draft ${id}`);
  return presentDraft(row);
}

export async function listDraftPage(db: Db, p: Principal, filters: { status?: DraftStatus }, page: PageRequest) {
  const result = await listDrafts(db, p.tenantId, filters, page);
  return { items: result.items.map(presentDraft), next_cursor: result.next_cursor };
}

export async function patchDraft(db: Db, p: Principal, id: string, changes: DraftChanges) {
  if (changes.json_schema !== undefined || changes.validation_rules !== undefined) {
    // The same checks a template gets, so that an accepted draft never fails on its content.
    const row = await findDraft(db, p.tenantId, id);
    if (!row) throw notFound(`Draft ${id}`);
    templateContent({ name: 'draft', json_schema: changes.json_schema ?? row.json_schema, validation_rules: changes.validation_rules ?? row.validation_rules });
  }
  return db.transaction().execute(async (tx) => {
    const row = await lockDraft(tx, p.tenantId, id);
    if (!row) throw notFound(`Draft ${id}`);
    if (row.status !== 'pending') throw notPending(row, 'patched');
    return presentDraft(await updateDraft(tx, p.tenantId, id, changes));
  });
}

export async function rejectDraft(db: Db, p: Principal, id: string) {
  return db.transaction().execute(async (tx) => {
    const row = await lockDraft(tx, p.tenantId, id);
    if (!row) throw notFound(`Draft ${id}`);
    if (row.status !== 'pending') throw notPending(row, 'rejected');
    return presentDraft(await resolveDraft(tx, p.tenantId, id, 'rejected', actorOf(p)));
  });
}

/**
 * Accept: the draft becomes template version 1, and the documents it was proposed from become
 * the template's first exemplars (so the next such document classifies to it).
 */
export async function acceptDraft(db: Db, p: Principal, id: string) {
  return db.transaction().execute(async (tx) => {
    const row = await lockDraft(tx, p.tenantId, id);
    if (!row) throw notFound(`Draft ${id}`);
    if (row.status !== 'pending') throw notPending(row, 'accepted');
    if (!/^[a-z0-9][a-z0-9_-]*$/.test(row.proposed_name) || row.proposed_name.length > 128) {
      throw validationError([{ loc: ['body', 'proposed_name'], msg: 'The draft name is not a valid template name (^[a-z0-9][a-z0-9_\\-]*$, at most 128 characters); patch proposed_name first', type: 'value_error', input: row.proposed_name }]);
    }
    const template = await createTemplateIn(tx, p, {
      name: row.proposed_name,
      description: row.proposed_description,
      prompt_overlay: row.prompt_overlay ?? '',
      json_schema: row.json_schema,
      validation_rules: row.validation_rules,
    });
    for (const jobId of row.proposed_from_job_ids) {
      const job = await findJob(tx, p.tenantId, jobId);
      const doc = job && !job.deleted_at ? documentOfJob(job) : null;
      if (doc) await upsertExemplar(tx, p.tenantId, jobId, template.id, fingerprintOfDocument(doc), 'draft_accepted');
    }
    return { draft: presentDraft(await resolveDraft(tx, p.tenantId, id, 'accepted', actorOf(p), template.id)), template };
  });
}
