// Which template a job without one runs with (decisions.md "Documents"): auto-classification over
// the active templates when the policy allows, else (or on a miss) the policy's
// default_template_id, else none, and then, with draft_on_miss_enabled, a draft is proposed or a
// similar one's auto_seen_count raised. The job's `classification` records how it went.
import type { Db } from '../../db/database.js';
import type { Job } from '../../db/documents-schema.js';
import type { PreparedDocument, TemplateChooser } from '../../pipeline/classify/index.js';
import type { EffectivePolicy } from '../policy/policy.registry.js';
import { proposeOnMiss } from '../drafts/drafts.service.js';
import { classifyPrepared } from './classification.service.js';

export interface JobTemplateChoice {
  templateId: string | null;
  /**
   * The version classification ranked and chose, which the job is extracted with even when the
   * template gets a new version meanwhile; null for the policy's default_template_id (its current
   * version when extraction reads it).
   */
  templateVersion: number | null;
  classification: Record<string, unknown>;
}

/** Whether a miss may propose a draft, so the document is prepared with one (prepareDocument). */
export const proposesDraftOnMiss = (policy: Pick<EffectivePolicy, 'auto_classify_enabled' | 'draft_on_miss_enabled'>): boolean => !!policy.auto_classify_enabled && !!policy.draft_on_miss_enabled;

/** `doc`: the document prepared for classification, with a draft proposal when proposesDraftOnMiss. */
export async function chooseJobTemplate(
  db: Db,
  job: Pick<Job, 'id' | 'tenant_id'>,
  doc: PreparedDocument,
  policy: Pick<EffectivePolicy, 'auto_classify_enabled' | 'default_template_id' | 'draft_on_miss_enabled'>,
  chooser?: TemplateChooser,
): Promise<JobTemplateChoice> {
  if (!policy.auto_classify_enabled) {
    const fallback = policy.default_template_id ?? null;
    return {
      templateId: fallback,
      templateVersion: null,
      classification: {
        matched: false,
        template_id: null,
        version: null,
        score: null,
        threshold: null,
        candidates: [],
        method: fallback ? 'default_template_id' : 'disabled',
        reason_code: 'auto_classify_disabled',
        ...(fallback ? { applied_template_id: fallback } : {}),
        reason: `auto_classify_enabled is off for this tenant; ${fallback ? "the policy's default_template_id was used" : 'no default_template_id is set, so the job has no extraction'}.`,
      },
    };
  }
  const { classification, fingerprint } = await classifyPrepared(db, job.tenant_id, doc, chooser);
  const record: Record<string, unknown> = { ...classification };
  if (classification.matched) return { templateId: classification.template_id, templateVersion: classification.version, classification: record };
  const fallback = policy.default_template_id ?? null;
  if (fallback) {
    record.method = 'default_template_id';
    record.applied_template_id = fallback;
    record.reason = `${classification.reason ?? 'No template matched.'} The policy's default_template_id was used.`;
  }
  if (policy.draft_on_miss_enabled) {
    if (!doc.draft) throw new Error('draft_on_miss_enabled is on but the document was prepared without a draft proposal');
    const proposed = await proposeOnMiss(db, job, fingerprint, doc.draft);
    record.draft = { id: proposed.draft.id, status: proposed.draft.status, created: proposed.created, auto_seen_count: proposed.draft.auto_seen_count, ...(proposed.similarity !== null ? { similarity: Math.round(proposed.similarity * 1000) / 1000 } : {}) };
  }
  return { templateId: fallback, templateVersion: null, classification: record };
}
