// One client per backend, each through its provider's official SDK (vertex: google-auth-library
// for the token, REST for the call). A backend's module, and so its SDK, loads with the first call
// that needs it: a process whose tenants have no model endpoint never loads any of them.
import type { GuardOptions } from '../../lib/ssrf-guard.js';
import type { ModelEndpointConfig } from '../endpoint-config.js';
import type { BackendContext, ModelClient } from './types.js';

export type { ModelAnswer, ModelClient, ModelRequest, ModelUsage, PageImage } from './types.js';
export { ModelCallError } from './errors.js';

export function createModelClient(endpoint: ModelEndpointConfig, guard: GuardOptions): ModelClient {
  let client: Promise<ModelClient> | undefined;
  return {
    endpoint,
    extract: async (request) => (await (client ??= backendClient({ endpoint, guard }))).extract(request.signal ? { ...request, signal: callSignal(request.signal) } : request),
  };
}

/**
 * A signal of the call's own that follows the job's: the SDKs' fetch layers leave an abort
 * listener on the signal they are given, so a job of many calls would pile them up on its own.
 */
function callSignal(job: AbortSignal): AbortSignal {
  return AbortSignal.any([job]);
}

async function backendClient(context: BackendContext): Promise<ModelClient> {
  switch (context.endpoint.backend) {
    case 'anthropic':
      return (await import('./anthropic.js')).anthropicClient(context);
    case 'bedrock':
      return (await import('./bedrock.js')).bedrockClient(context);
    case 'vertex':
      return (await import('./vertex.js')).vertexClient(context);
    case 'custom_url':
      return (await import('./custom-url.js')).customUrlClient(context);
  }
}
