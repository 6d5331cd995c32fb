// Which proposer runs a forge job: the model-driven one through the job's forge endpoint (its
// credentials opened from the secrets box at run time), else the deterministic forge.
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { ForgeJobRow } from '../../db/classification-schema.js';
import { resolveForgeEndpoint } from '../../domain/endpoints/resolve.js';
import { SecretBox } from '../../lib/secret-box.js';
import { guardOptionsFromConfig } from '../../lib/ssrf-guard.js';
import { DeterministicProposer } from '../../pipeline/forge/deterministic.js';
import type { ForgeProposer } from '../../pipeline/forge/proposer.js';
import { createModelClient } from '../backends/index.js';
import { ForgeModelError, ModelForgeProposer } from './model-proposer.js';

export type ProposerResolver = (job: ForgeJobRow) => Promise<ForgeProposer>;

export function forgeProposerResolver(db: Db, config: Config): ProposerResolver {
  let box: SecretBox | null = null;
  const guard = guardOptionsFromConfig(config);
  return async (job) => {
    if (!job.endpoint_id) return new DeterministicProposer();
    box ??= SecretBox.fromConfig(config);
    const endpoint = await resolveForgeEndpoint(db, box, job.tenant_id, job.endpoint_id);
    if (!endpoint) throw new ForgeModelError(`Forge endpoint ${job.endpoint_id} no longer exists (it was deleted after the forge job was submitted). Submit the forge job again with another endpoint_id.`);
    try {
      return new ModelForgeProposer(createModelClient(endpoint, guard));
    } catch (err) {
      throw new ForgeModelError(`The ${endpoint.label} cannot be used: ${(err as Error).message.replace(`${endpoint.label}: `, '')}. Correct the endpoint, then submit the forge job again.`);
    }
  };
}
