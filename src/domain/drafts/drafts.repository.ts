// SQL for template drafts. Every function takes the tenant: another tenant's draft is not found.
import { sql } from 'kysely';
import type { Db, Tx } from '../../db/database.js';
import type { DraftRow, DraftStatus } from '../../db/classification-schema.js';
import { type PageRequest, paginate } from '../../lib/pagination.js';

export interface NewDraft {
  id: string;
  proposed_by: string | null;
  proposed_from_job_ids: string[];
  proposed_from_hint: string | null;
  auto_seen_count: number;
  proposed_name: string;
  proposed_description: string | null;
  json_schema: Record<string, unknown>;
  prompt_overlay: string | null;
  validation_rules: Record<string, unknown>[];
  field_examples: Record<string, unknown>;
  drafter_notes: string | null;
  fingerprint: Record<string, unknown> | null;
}

export interface DraftChanges {
  proposed_name?: string;
  proposed_description?: string | null;
  json_schema?: Record<string, unknown>;
  prompt_overlay?: string | null;
  validation_rules?: Record<string, unknown>[];
  field_examples?: Record<string, unknown>;
  drafter_notes?: string | null;
}

const json = (v: unknown) => JSON.stringify(v);

export async function insertDraft(db: Db | Tx, tenantId: string, d: NewDraft): Promise<DraftRow> {
  return db
    .insertInto('template_drafts')
    .values({
      ...d,
      tenant_id: tenantId,
      json_schema: json(d.json_schema),
      validation_rules: json(d.validation_rules),
      field_examples: json(d.field_examples),
      fingerprint: d.fingerprint ? json(d.fingerprint) : null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findDraft(db: Db | Tx, tenantId: string, id: string): Promise<DraftRow | undefined> {
  return db.selectFrom('template_drafts').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

export async function lockDraft(tx: Tx, tenantId: string, id: string): Promise<DraftRow | undefined> {
  return tx.selectFrom('template_drafts').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function listDrafts(db: Db, tenantId: string, filters: { status?: DraftStatus }, page: PageRequest) {
  let q = db.selectFrom('template_drafts').selectAll().where('tenant_id', '=', tenantId);
  if (filters.status) q = q.where('status', '=', filters.status);
  return paginate(q, page);
}

/**
 * Drafts proposed on a miss that a new miss is compared with (they carry a fingerprint): the
 * pending ones, which count it, and the rejected ones, which say no such template is wanted.
 */
export async function autoDraftsToCompare(db: Db | Tx, tenantId: string): Promise<DraftRow[]> {
  return db
    .selectFrom('template_drafts')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('status', 'in', ['pending', 'rejected'])
    .where('fingerprint', 'is not', null)
    .orderBy('created_at', 'desc')
    .limit(200)
    .execute();
}

/** One more similar document seen: count it and remember its job (once). */
export async function recordSeen(db: Db | Tx, tenantId: string, id: string, jobId: string): Promise<DraftRow | undefined> {
  return db
    .updateTable('template_drafts')
    .set({
      auto_seen_count: sql`auto_seen_count + 1`,
      proposed_from_job_ids: sql`array_append(proposed_from_job_ids, ${jobId}::text)`,
      updated_at: sql`now()`,
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where(sql<boolean>`NOT (${jobId}::text = ANY(proposed_from_job_ids))`)
    .returningAll()
    .executeTakeFirst();
}

export async function updateDraft(tx: Tx, tenantId: string, id: string, c: DraftChanges): Promise<DraftRow> {
  return tx
    .updateTable('template_drafts')
    .set({
      ...(c.proposed_name !== undefined ? { proposed_name: c.proposed_name } : {}),
      ...(c.proposed_description !== undefined ? { proposed_description: c.proposed_description } : {}),
      ...(c.json_schema !== undefined ? { json_schema: json(c.json_schema) } : {}),
      ...(c.prompt_overlay !== undefined ? { prompt_overlay: c.prompt_overlay } : {}),
      ...(c.validation_rules !== undefined ? { validation_rules: json(c.validation_rules) } : {}),
      ...(c.field_examples !== undefined ? { field_examples: json(c.field_examples) } : {}),
      ...(c.drafter_notes !== undefined ? { drafter_notes: c.drafter_notes } : {}),
      updated_at: sql`now()`,
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function resolveDraft(tx: Tx, tenantId: string, id: string, status: 'accepted' | 'rejected', by: string | null, templateId: string | null = null): Promise<DraftRow> {
  return tx
    .updateTable('template_drafts')
    .set({ status, resolved_at: sql`now()`, resolved_by: by, accepted_as_template_id: templateId, updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Names taken in the tenant that a proposed name could collide with: its live templates' names
 * and its pending drafts' proposed names that start with `base`.
 */
export async function namesStartingWith(db: Db | Tx, tenantId: string, base: string): Promise<Set<string>> {
  const templates = await db
    .selectFrom('templates')
    .select('name')
    .where('tenant_id', '=', tenantId)
    .where('deleted_at', 'is', null)
    .where(sql<boolean>`left(name, ${base.length}) = ${base}`)
    .execute();
  const drafts = await db
    .selectFrom('template_drafts')
    .select('proposed_name')
    .where('tenant_id', '=', tenantId)
    .where('status', '=', 'pending')
    .where(sql<boolean>`left(proposed_name, ${base.length}) = ${base}`)
    .execute();
  return new Set([...templates.map((t) => t.name), ...drafts.map((d) => d.proposed_name)]);
}
