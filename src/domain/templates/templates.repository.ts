// SQL for templates and their versions. Every function takes the tenant: another tenant's
// template is simply not found. Deleted templates are invisible except where stated.
import { sql } from 'kysely';
import type { Db, Tx } from '../../db/database.js';
import type { TemplateRow, TemplateVersionRow } from '../../db/templates-schema.js';
import { type Page, type PageRequest, decodeVersionCursor, encodeVersionCursor, paginate } from '../../lib/pagination.js';

export interface TemplateContent {
  name: string;
  description: string | null;
  prompt_overlay: string;
  json_schema: Record<string, unknown>;
  validation_rules: Record<string, unknown>[];
  review_thresholds: Record<string, unknown>;
  post_processing: Record<string, unknown> | null;
}

export interface TemplateFilters {
  active?: boolean;
  q?: string;
}

const json = (v: unknown) => JSON.stringify(v);

function contentColumns(c: TemplateContent) {
  return {
    name: c.name,
    description: c.description,
    prompt_overlay: c.prompt_overlay,
    json_schema: json(c.json_schema),
    validation_rules: json(c.validation_rules),
    review_thresholds: json(c.review_thresholds),
    post_processing: c.post_processing === null ? null : json(c.post_processing),
  };
}

export async function insertTemplate(tx: Tx, tenantId: string, id: string, content: TemplateContent, actor: string | null): Promise<TemplateRow> {
  return tx
    .insertInto('templates')
    .values({ id, tenant_id: tenantId, ...contentColumns(content), version: 1, active: true, created_by: actor, updated_by: actor })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findTemplate(db: Db | Tx, tenantId: string, id: string): Promise<TemplateRow | undefined> {
  return db.selectFrom('templates').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
}

/** Locks a live template for a change (updates, activation, deletion serialise on the row). */
export async function lockTemplate(tx: Tx, tenantId: string, id: string): Promise<TemplateRow | undefined> {
  return tx.selectFrom('templates').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).where('deleted_at', 'is', null).forUpdate().executeTakeFirst();
}

/** Replaces the content and moves to the next version. */
export async function updateTemplateContent(tx: Tx, tenantId: string, id: string, content: TemplateContent, actor: string | null): Promise<TemplateRow> {
  return tx
    .updateTable('templates')
    .set({ ...contentColumns(content), version: sql`version + 1`, updated_by: actor, updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function setTemplateActive(tx: Tx, tenantId: string, id: string, active: boolean, actor: string | null): Promise<TemplateRow> {
  return tx
    .updateTable('templates')
    .set({ active, updated_by: actor, updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function softDeleteTemplate(tx: Tx, tenantId: string, id: string, actor: string | null): Promise<void> {
  await tx
    .updateTable('templates')
    .set({ deleted_at: sql`now()`, deleted_by: actor, active: false, updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

export async function listTemplates(db: Db, tenantId: string, filters: TemplateFilters, page: PageRequest) {
  let q = db.selectFrom('templates').selectAll().where('tenant_id', '=', tenantId).where('deleted_at', 'is', null);
  if (filters.active !== undefined) q = q.where('active', '=', filters.active);
  if (filters.q) {
    const pattern = `%${filters.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where((eb) => eb.or([eb('name', 'ilike', pattern), eb('description', 'ilike', pattern)]));
  }
  return paginate(q, page);
}

export async function insertVersion(tx: Tx, row: TemplateRow, snapshot: Record<string, unknown>, actor: string | null): Promise<void> {
  await tx
    .insertInto('template_versions')
    .values({ template_id: row.id, version: row.version, tenant_id: row.tenant_id, snapshot: json(snapshot), created_by: actor })
    .execute();
}

/** A template's versions, newest (highest) first, paged by version; `version` picks one. */
export async function listVersions(db: Db, tenantId: string, templateId: string, filters: { version?: number }, page: PageRequest): Promise<Page<TemplateVersionRow>> {
  const limit = page.limit ?? 50;
  let q = db.selectFrom('template_versions').selectAll().where('tenant_id', '=', tenantId).where('template_id', '=', templateId);
  if (filters.version !== undefined) q = q.where('version', '=', filters.version);
  if (page.cursor) q = q.where('version', '<', decodeVersionCursor(page.cursor));
  const rows = await q.orderBy('version', 'desc').limit(limit + 1).execute();
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next_cursor: rows.length > limit && last ? encodeVersionCursor(last.version) : null };
}

/** One version of a template, deleted or not (a job keeps pointing at the version it used). */
export async function findVersion(db: Db | Tx, tenantId: string, templateId: string, version: number): Promise<TemplateVersionRow | undefined> {
  return db.selectFrom('template_versions').selectAll().where('tenant_id', '=', tenantId).where('template_id', '=', templateId).where('version', '=', version).executeTakeFirst();
}

/** A tenant's active live templates (auto-classification). */
export async function listActiveTemplates(db: Db, tenantId: string): Promise<TemplateRow[]> {
  return db.selectFrom('templates').selectAll().where('tenant_id', '=', tenantId).where('active', '=', true).where('deleted_at', 'is', null).orderBy('created_at').execute();
}
