// Templates: create, read, list, update (each update a new immutable version), activate,
// deactivate, soft delete, versions and audit. Every function acts in the caller's (acting)
// tenant; another tenant's template is not found. Writes need an admin (the route says so).
import type { Db, Tx } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { TemplateRow } from '../../db/templates-schema.js';
import { conflict, notFound, validationError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { PageRequest } from '../../lib/pagination.js';
import type { ExtractionTemplate } from '../../pipeline/extract/index.js';
import { listTemplateAudit } from '../audit/audit.repository.js';
import { findTenantValues } from '../policy/policy.repository.js';
import type { Principal } from '../identity/principal.js';
import { checkTemplate } from './template-check.js';
import {
  type TemplateContent,
  type TemplateFilters,
  findTemplate,
  findVersion,
  insertTemplate,
  insertVersion,
  listTemplates as listRows,
  listVersions,
  lockTemplate,
  setTemplateActive,
  softDeleteTemplate,
  updateTemplateContent,
} from './templates.repository.js';

/** TemplateCreatePayload of interface.md (after request validation). */
export interface TemplatePayload {
  name: string;
  description?: string | null;
  prompt_overlay?: string;
  json_schema: Record<string, unknown>;
  validation_rules?: Record<string, unknown>[];
  review_thresholds?: Record<string, unknown>;
  post_processing?: Record<string, unknown> | null;
}

/** decisions.md "Records": the template record. */
export interface TemplateRecord extends TemplateContent {
  id: string;
  tenant_id: string;
  version: number;
  active: boolean;
  created_at: Date;
  updated_at: Date;
  created_by: string | null;
  updated_by: string | null;
}

export function presentTemplate(row: TemplateRow): TemplateRecord {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    name: row.name,
    description: row.description,
    prompt_overlay: row.prompt_overlay,
    json_schema: row.json_schema,
    validation_rules: row.validation_rules,
    review_thresholds: row.review_thresholds,
    post_processing: row.post_processing,
    version: row.version,
    active: row.active,
    created_at: row.created_at,
    updated_at: row.updated_at,
    created_by: row.created_by,
    updated_by: row.updated_by,
  };
}

const actorOf = (p: Principal) => p.userId ?? p.apiKeyId;
const nameTaken = (name: string) =>
  conflict('template_name_taken', `A template named '${name}' already exists in this tenant. Choose another name, or update that template.`);

/** Fills the payload's defaults and checks what its request schema cannot (422 otherwise). */
export function templateContent(payload: TemplatePayload, root: (string | number)[] = ['body']): TemplateContent {
  const problems = checkTemplate(payload, root);
  if (problems.length) throw validationError(problems);
  return {
    name: payload.name,
    description: payload.description ?? null,
    prompt_overlay: payload.prompt_overlay ?? '',
    json_schema: payload.json_schema,
    validation_rules: payload.validation_rules ?? [],
    review_thresholds: payload.review_thresholds ?? {},
    post_processing: payload.post_processing ?? null,
  };
}

/** The snapshot stored for a version: the record as it was saved (dates as RFC 3339 text). */
function snapshotOf(row: TemplateRow): Record<string, unknown> {
  return JSON.parse(JSON.stringify(presentTemplate(row))) as Record<string, unknown>;
}

export async function createTemplate(db: Db, principal: Principal, payload: TemplatePayload): Promise<TemplateRecord> {
  return db.transaction().execute((tx) => createTemplateIn(tx, principal, payload));
}

/** createTemplate inside the caller's transaction (a draft accepted, a forge job promoted). */
export async function createTemplateIn(tx: Tx, principal: Principal, payload: TemplatePayload): Promise<TemplateRecord> {
  const content = templateContent(payload);
  try {
    const row = await insertTemplate(tx, principal.tenantId, newId('tpl'), content, actorOf(principal));
    await insertVersion(tx, row, snapshotOf(row), actorOf(principal));
    return presentTemplate(row);
  } catch (err) {
    if (isUniqueViolation(err, 'templates_live_name')) throw nameTaken(content.name);
    throw err;
  }
}

export async function getTemplate(db: Db, principal: Principal, id: string): Promise<TemplateRecord> {
  const row = await findTemplate(db, principal.tenantId, id);
  if (!row) throw notFound(`Template ${id}`);
  return presentTemplate(row);
}

export async function listTemplates(db: Db, principal: Principal, filters: TemplateFilters, page: PageRequest) {
  const result = await listRows(db, principal.tenantId, filters, page);
  return { items: result.items.map(presentTemplate), next_cursor: result.next_cursor };
}

/** PUT: the payload replaces the template's content and becomes the next version. */
export async function updateTemplate(db: Db, principal: Principal, id: string, payload: TemplatePayload): Promise<TemplateRecord> {
  return db.transaction().execute((tx) => updateTemplateIn(tx, principal, id, payload));
}

/** updateTemplate inside the caller's transaction. */
export async function updateTemplateIn(tx: Tx, principal: Principal, id: string, payload: TemplatePayload): Promise<TemplateRecord> {
  const content = templateContent(payload);
  try {
    const current = await lockTemplate(tx, principal.tenantId, id);
    if (!current) throw notFound(`Template ${id}`);
    const row = await updateTemplateContent(tx, principal.tenantId, id, content, actorOf(principal));
    await insertVersion(tx, row, snapshotOf(row), actorOf(principal));
    return presentTemplate(row);
  } catch (err) {
    if (isUniqueViolation(err, 'templates_live_name')) throw nameTaken(content.name);
    throw err;
  }
}

export async function setActive(db: Db, principal: Principal, id: string, active: boolean): Promise<TemplateRecord> {
  return db.transaction().execute(async (tx) => {
    const current = await lockTemplate(tx, principal.tenantId, id);
    if (!current) throw notFound(`Template ${id}`);
    if (current.active === active) {
      throw conflict(
        active ? 'template_already_active' : 'template_already_inactive',
        active ? `Template ${id} is already active.` : `Template ${id} is already inactive.`,
      );
    }
    return presentTemplate(await setTemplateActive(tx, principal.tenantId, id, active, actorOf(principal)));
  });
}

export async function deleteTemplate(db: Db, principal: Principal, id: string): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const current = await lockTemplate(tx, principal.tenantId, id);
    if (!current) throw notFound(`Template ${id}`);
    // Every job without a template (or that no template matched) would fail on a deleted default.
    if ((await findTenantValues(tx, principal.tenantId)).default_template_id === id) {
      throw conflict('template_in_use', `Template ${id} is this tenant's default_template_id: jobs without a template run with it. Set another default_template_id (or null) in the tenant policy first.`);
    }
    await softDeleteTemplate(tx, principal.tenantId, id, actorOf(principal));
  });
}

/** A template's versions, newest first, paged like every list; `version` picks one. */
export async function templateVersions(db: Db, principal: Principal, id: string, filters: { version?: number }, page: PageRequest) {
  const row = await findTemplate(db, principal.tenantId, id);
  if (!row) throw notFound(`Template ${id}`);
  const versions = await listVersions(db, principal.tenantId, id, filters, page);
  return {
    items: versions.items.map((v) => ({ version: v.version, created_at: v.created_at, created_by: v.created_by, template: v.snapshot })),
    next_cursor: versions.next_cursor,
  };
}

/** The audit entries of one template (every change made through the API), newest first. */
export async function templateAudit(db: Db, principal: Principal, id: string, page: PageRequest) {
  const row = await findTemplate(db, principal.tenantId, id);
  if (!row) throw notFound(`Template ${id}`);
  return listTemplateAudit(db, principal.tenantId, id, page);
}

function forExtraction(record: Pick<TemplateRecord, 'id' | 'version' | 'json_schema' | 'validation_rules' | 'review_thresholds' | 'post_processing' | 'prompt_overlay'>): ExtractionTemplate {
  return {
    id: record.id,
    version: record.version,
    json_schema: record.json_schema,
    validation_rules: record.validation_rules,
    review_thresholds: record.review_thresholds,
    post_processing: record.post_processing,
    prompt_overlay: record.prompt_overlay,
  };
}

/**
 * The template a job runs with (for the job worker): the current version of a live template, or,
 * with `version`, that exact version (even of a template deleted since). undefined when missing.
 */
export async function templateForRun(db: Db, tenantId: string, templateId: string, version?: number | null): Promise<ExtractionTemplate | undefined> {
  if (version) {
    const v = await findVersion(db, tenantId, templateId, version);
    return v ? forExtraction(v.snapshot as unknown as TemplateRecord) : undefined;
  }
  const row = await findTemplate(db, tenantId, templateId);
  return row ? forExtraction(presentTemplate(row)) : undefined;
}
