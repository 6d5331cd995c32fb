// The remote OCR service a job's pages go to: the `ocr` infrastructure endpoint in effect for the
// tenant, as plain data for the pipeline thread. Holds an opened credential: never log it.
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { resolveInfraEndpoint } from '../domain/endpoints/resolve.js';
import { SecretBox } from '../lib/secret-box.js';
import type { RemoteOcrOptions } from '../pipeline/ocr/remote/engine.js';

const boxes = new WeakMap<Config, SecretBox>();

/** `overridesEnabled`: the tenant's `tenant_infra_overrides_enabled`, from the policy the job runs under. */
export async function remoteOcrFor(db: Db, config: Config, tenantId: string, overridesEnabled: boolean): Promise<RemoteOcrOptions | null> {
  let box = boxes.get(config);
  if (!box) boxes.set(config, (box = SecretBox.fromConfig(config)));
  const endpoint = await resolveInfraEndpoint(db, box, tenantId, 'ocr', overridesEnabled);
  if (!endpoint) return null;
  return {
    endpoint: { base_url: endpoint.base_url, api_key: endpoint.api_key, timeout_seconds: endpoint.timeout_seconds },
    outbound: { allowPrivateNetwork: config.allowPrivateNetwork, outboundAllow: [...config.outboundAllow] },
  };
}
