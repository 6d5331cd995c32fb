// Classification in the service: a document (its canonical output) against the tenant's active
// templates and the exemplars they have gathered, and learning from use: a job that completes
// (or is approved) under a template becomes one of its exemplars.
import type { Db, Tx } from '../../db/database.js';
import type { Job } from '../../db/documents-schema.js';
import type { TemplateRow } from '../../db/templates-schema.js';
import {
  type ChosenClassification,
  type Fingerprint,
  type PreparedDocument,
  type TemplateChooser,
  type TemplateProfile,
  classifyWith,
  embeddedChooser,
  fieldLabels,
  fingerprintOfDocument,
  rankTemplates,
} from '../../pipeline/classify/index.js';
import type { CanonicalJson } from '../../pipeline/index.js';
import { schemaFields } from '../../pipeline/extract/index.js';
import { addModelUsage } from '../../models/usage.js';
import { listActiveTemplates } from '../templates/templates.repository.js';
import { exemplarsOf, upsertExemplar } from './exemplars.repository.js';

/** Exemplars read per template for one classification (the newest ones). */
export const EXEMPLARS_READ = 50;

/** Keywords a template declares for classification: `json_schema["x-classification"].keywords`. */
export function declaredKeywords(schema: Record<string, unknown>): string[] {
  const block = schema['x-classification'];
  if (!block || typeof block !== 'object') return [];
  const keywords = (block as { keywords?: unknown }).keywords;
  return Array.isArray(keywords) ? keywords.filter((k): k is string => typeof k === 'string' && k.trim() !== '') : [];
}

export function profileOf(t: Pick<TemplateRow, 'id' | 'version' | 'name' | 'json_schema'>, exemplars: TemplateProfile['exemplars']): TemplateProfile {
  return { template_id: t.id, version: t.version, name: t.name, keywords: declaredKeywords(t.json_schema), fields: fieldLabels(schemaFields(t.json_schema)), exemplars };
}

/** The tenant's active templates with their newest exemplars. */
export async function activeProfiles(db: Db, tenantId: string): Promise<TemplateProfile[]> {
  const templates = await listActiveTemplates(db, tenantId);
  const rows = await exemplarsOf(db, tenantId, templates.map((t) => t.id), EXEMPLARS_READ);
  const byTemplate = new Map<string, TemplateProfile['exemplars']>();
  for (const row of rows) {
    const list = byTemplate.get(row.template_id) ?? [];
    list.push({ job_id: row.job_id, fingerprint: row.fingerprint as unknown as Fingerprint });
    byTemplate.set(row.template_id, list);
  }
  return templates.map((t) => profileOf(t, byTemplate.get(t.id) ?? []));
}

export interface DocumentView {
  canonical: CanonicalJson;
  format: string | null;
  entities?: { type: string; text: string; value: unknown }[] | null;
}

export { fingerprintOfDocument };

/**
 * Classification of one document, with the fingerprint it was computed from. A model chooser's
 * calls are added to the tenant's monthly model usage, as extraction's are.
 */
export async function classifyDocument(db: Db, tenantId: string, doc: DocumentView, chooser: TemplateChooser = embeddedChooser): Promise<{ classification: ChosenClassification; fingerprint: Fingerprint }> {
  return classifyPrepared(db, tenantId, { fingerprint: fingerprintOfDocument(doc), text: doc.canonical.text }, chooser);
}

/** Classification of a document whose fingerprint was computed beforehand (in a pipeline thread). */
export async function classifyPrepared(db: Db, tenantId: string, doc: Pick<PreparedDocument, 'fingerprint' | 'text'>, chooser: TemplateChooser = embeddedChooser): Promise<{ classification: ChosenClassification; fingerprint: Fingerprint }> {
  const profiles = await activeProfiles(db, tenantId);
  const candidates = rankTemplates(doc.fingerprint, doc.text, profiles);
  const classification = await classifyWith(chooser, candidates, doc.text);
  if (classification.model) await addModelUsage(db, tenantId, [classification.model]);
  return { classification, fingerprint: doc.fingerprint };
}

/** What a finished job's result holds for classification (canonical, format, entities). */
export function documentOfJob(job: Pick<Job, 'result' | 'content_type'>): DocumentView | null {
  const result = job.result as { canonical?: CanonicalJson; entities?: DocumentView['entities']; engine?: { format?: string } } | null;
  if (!result?.canonical) return null;
  return { canonical: result.canonical, format: result.engine?.format ?? null, entities: result.entities ?? null };
}

/**
 * Learning from use: the job's document becomes an exemplar of the template its extraction ran
 * with (moving it from any other template). A job without extraction adds nothing.
 */
export async function recordExemplar(db: Db | Tx, job: Pick<Job, 'id' | 'tenant_id' | 'result' | 'content_type'>, source: string): Promise<boolean> {
  const extraction = (job.result as { extraction?: { template_id?: string | null } } | null)?.extraction;
  const doc = documentOfJob(job);
  if (!extraction?.template_id || !doc) return false;
  await upsertExemplar(db, job.tenant_id, job.id, extraction.template_id, fingerprintOfDocument(doc), source);
  return true;
}

/** recordExemplar with the document's fingerprint computed beforehand (in a pipeline thread). */
export async function recordExemplarFingerprint(db: Db | Tx, job: Pick<Job, 'id' | 'tenant_id'>, templateId: string, fingerprint: Fingerprint, source: string): Promise<void> {
  await upsertExemplar(db, job.tenant_id, job.id, templateId, fingerprint, source);
}

/** recordExemplar for a job read by id (after a review resolved it). */
export async function recordExemplarOfJob(db: Db, tenantId: string, jobId: string, source: string): Promise<void> {
  const job = await db.selectFrom('jobs').select(['id', 'tenant_id', 'result', 'content_type']).where('tenant_id', '=', tenantId).where('id', '=', jobId).executeTakeFirst();
  if (job) await recordExemplar(db, job, source);
}
