// POST /v1/templates/classify: a file (read by the request pipeline, nothing stored) or an
// existing job's canonical output, ranked against the tenant's active templates.
import type { EffectivePolicy } from '../policy/policy.registry.js';
import type { Principal } from '../identity/principal.js';
import { type TestDeps, type TestInput, canonicalOf } from '../templates/template-test.service.js';
import { classifyDocument } from './classification.service.js';

export async function classifyRequest(deps: TestDeps, principal: Principal, policy: EffectivePolicy, input: TestInput) {
  const read = await canonicalOf(deps, principal, policy, input);
  const { classification } = await classifyDocument(deps.db, principal.tenantId, { canonical: read.canonical, format: read.source.format ?? null });
  return classification;
}
