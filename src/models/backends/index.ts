// One client per backend, each through its provider's official SDK (vertex: google-auth-library
// for the token, REST for the call).
import type { GuardOptions } from '../../lib/ssrf-guard.js';
import type { ModelEndpointConfig } from '../endpoint-config.js';
import { anthropicClient } from './anthropic.js';
import { bedrockClient } from './bedrock.js';
import { customUrlClient } from './custom-url.js';
import type { ModelClient } from './types.js';
import { vertexClient } from './vertex.js';

export type { ModelAnswer, ModelClient, ModelRequest, ModelUsage, PageImage } from './types.js';
export { ModelCallError } from './errors.js';

export function createModelClient(endpoint: ModelEndpointConfig, guard: GuardOptions): ModelClient {
  switch (endpoint.backend) {
    case 'anthropic':
      return anthropicClient({ endpoint, guard });
    case 'bedrock':
      return bedrockClient({ endpoint, guard });
    case 'vertex':
      return vertexClient({ endpoint, guard });
    case 'custom_url':
      return customUrlClient({ endpoint, guard });
  }
}
