// The model clients a job's extraction uses: the tenant's effective vlm endpoint (none: the
// embedded extractor does the work) and judge endpoint (none: judge mode keeps the second reading).
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { resolveInfraEndpoint } from '../domain/endpoints/resolve.js';
import { PipelineFailure } from '../queue/pipeline-pool.js';
import { SecretBox } from '../lib/secret-box.js';
import { type GuardOptions, guardOptionsFromConfig } from '../lib/ssrf-guard.js';
import { createModelClient } from './backends/index.js';
import type { ModelClient } from './backends/types.js';
import type { ModelEndpointConfig } from './endpoint-config.js';

/** Endpoints in effect for a job's tenant; clients are built (clientFor) only when a template extraction runs. */
export interface JobModels {
  vlm: ModelEndpointConfig | null;
  judge: ModelEndpointConfig | null;
  guard: GuardOptions;
}

/** `judge`: judge mode is on; `overridesEnabled`: the tenant's `tenant_infra_overrides_enabled` in the policy the job runs under. */
export type JobModelResolver = (tenantId: string, options: { judge: boolean; overridesEnabled: boolean }) => Promise<JobModels>;

/** A client for an endpoint; a configuration no client can be built from fails the job with model_error. */
export function clientFor(endpoint: ModelEndpointConfig, guard: GuardOptions): ModelClient {
  try {
    return createModelClient(endpoint, guard);
  } catch (err) {
    throw new PipelineFailure('model_error', `The ${endpoint.label} cannot be used: ${(err as Error).message.replace(`${endpoint.label}: `, '')}. Correct the endpoint, then retry the job.`, false);
  }
}

export function jobModelResolver(db: Db, config: Config): JobModelResolver {
  let box: SecretBox | null = null;
  const guard = guardOptionsFromConfig(config);
  return async (tenantId, { judge, overridesEnabled }) => {
    box ??= SecretBox.fromConfig(config);
    const vlm = await resolveInfraEndpoint(db, box, tenantId, 'vlm', overridesEnabled);
    if (!vlm) return { vlm: null, judge: null, guard };
    return { vlm, judge: judge ? await resolveInfraEndpoint(db, box, tenantId, 'judge', overridesEnabled) : null, guard };
  };
}
