// POST /v1/templates/classify: a file (read and prepared on a pipeline thread, nothing stored) or an
// existing job's canonical output, ranked against the tenant's active templates. With a vlm
// endpoint in effect, the model settles an ambiguous ranking (from the text: no page is drawn here).
import type { SecretBox } from '../../lib/secret-box.js';
import { guardOptionsFromConfig } from '../../lib/ssrf-guard.js';
import { ModelChooser } from '../../models/classify/model-chooser.js';
import { clientFor } from '../../models/job-models.js';
import { resolveInfraEndpoint } from '../endpoints/resolve.js';
import type { EffectivePolicy } from '../policy/policy.registry.js';
import type { Principal } from '../identity/principal.js';
import { type TestDeps, type TestInput, canonicalOf, extractInThread } from '../templates/template-test.service.js';
import { classifyPrepared } from './classification.service.js';

export async function classifyRequest(deps: TestDeps & { secretBox: SecretBox }, principal: Principal, policy: EffectivePolicy, input: TestInput) {
  const read = await canonicalOf(deps, principal, policy, input);
  const vlm = await resolveInfraEndpoint(deps.db, deps.secretBox, principal.tenantId, 'vlm');
  const guard = guardOptionsFromConfig(deps.config);
  const chooser = vlm ? new ModelChooser({ client: () => clientFor(vlm, guard) }) : undefined;
  // The document is prepared (fingerprint, entities) on a pipeline thread, as a job's is.
  const output = await extractInThread(deps, { canonicalText: read.canonicalText, format: read.source.format ?? null, policy, template: null, classify: { draft: false } });
  if (!output.prepared) throw new Error('the pipeline thread answered without the prepared document');
  const { classification } = await classifyPrepared(deps.db, principal.tenantId, output.prepared, chooser);
  return classification;
}
