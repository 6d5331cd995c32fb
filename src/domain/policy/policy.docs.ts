// Renders docs/policy.md from the policy registry, so the documentation cannot drift from the code.
// policy.docs.test.ts fails when the file is stale; `UPDATE_DOCS=1 npx vitest run src/domain/policy`
// rewrites it.
import { ENV_VARS } from '../../config.js';
import { KILL_SWITCHES, PLATFORM_CONTROLLED, POLICY_NAMES, POLICY_REGISTRY, type PolicyField, describeConstraint } from './policy.registry.js';
import { MAX_AGE_MS, POLL_MS } from './policy.service.js';

const envDefault = (name: string) => ENV_VARS.find((v) => v.name === name)?.default ?? '?';
const cell = (text: string) => text.replace(/\|/g, '\\|');
const code = (value: unknown) => `\`${JSON.stringify(value)}\``;

export function renderPolicyDocs(): string {
  const rows = POLICY_NAMES.map((name) => {
    const f = POLICY_REGISTRY[name];
    const type = f.type === 'string' && f.enum ? 'string (enum)' : f.type;
    const setBy = (f as PolicyField).platformControlled ? 'platform admin' : 'tenant admin';
    return `| \`${name}\` | ${type} | ${cell(describeConstraint(f)) || '—'} | ${f.inheritable ? 'yes' : '**no, kill switch**'} | ${setBy} | ${code(f.default)} | ${cell(f.description)} |`;
  });
  const killSwitches = KILL_SWITCHES.map((n) => `\`${n}\``).join(', ');
  const controlled = PLATFORM_CONTROLLED.map((n) => `\`${n}\``).join(', ');
  return `<!-- Generated from src/domain/policy/policy.registry.ts by src/domain/policy/policy.docs.ts. Do not edit by hand:
     change the registry, then run \`UPDATE_DOCS=1 npx vitest run src/domain/policy\`. -->

# Tenant policy, platform defaults and rate limits

Every tenant has a policy: ${POLICY_NAMES.length} settings that steer extraction, review, the template forge,
OCR and rate limits. A tenant's own value wins; a field the tenant has not set takes the **platform
default**. Platform admins change the platform defaults and may set any field for a tenant; tenant
admins change their own tenant's fields except the platform-controlled ones: the kill switches and
what bounds the platform's resources (${controlled}). A tenant admin's \`PATCH\` naming one of
those is 403 \`platform_controlled\` and changes nothing, and a tenant admin's \`DELETE\` keeps
them; otherwise a kill switch or a limit would be no limit at all.

## Fields

"Inherits" says whether a tenant's \`null\` clears its own value so the field follows the platform
default again. The platform default column is the built-in default, in force until a platform admin
changes it with \`PATCH /v1/platform/defaults\`.

| Field | Type | Constraint | Inherits | Set per tenant by | Platform default | Description |
|---|---|---|---|---|---|---|
${rows.join('\n')}

Kill switches: ${killSwitches}. Until a tenant sets one it reads the platform default (source
\`platform\`); once set it can be changed but not cleared with \`null\` (422). \`DELETE\` resets it with
everything else. \`feature_flags\` and the five nested policy objects (\`layout_policy\`,
\`paddle_risk_policy\`, \`prompt_budget_policy\`, \`language_policy\`, \`preprocessing_policy\`) are free-form
objects stored exactly as given: a tenant's object replaces the platform's as a whole (no deep merge).

## Endpoints

| Operation | Who | Answer |
|---|---|---|
| \`GET /v1/admin/tenant-policy/{tenant_id}\` | admin of that tenant, or a platform admin | the read below |
| \`PATCH /v1/admin/tenant-policy/{tenant_id}\` | same | the read after the change |
| \`DELETE /v1/admin/tenant-policy/{tenant_id}\` | same | 200 with the read after the reset (every field inherits, kill switches included; by a tenant admin, the platform-controlled fields keep their values) |
| \`GET /v1/admin/tenant-policy/defaults-view\` | any admin | \`{defaults: {<field>: value}, updated_at}\`: the platform defaults in force |
| \`GET /v1/admin/tenant-policy/registry-spec\` | any admin | \`{fields: [{name, type, enum, minimum, maximum, exclusive_minimum, constraint, nullable, inheritable, kill_switch, platform_controlled, default, description, schema}], kill_switches, platform_controlled}\` |
| \`GET /v1/platform/defaults\` | platform admin | \`{defaults, updated_at}\` (\`updated_at\` null while every default is built in) |
| \`PATCH /v1/platform/defaults\` | platform admin | \`{defaults, updated_at}\` after the change |

A tenant admin naming another tenant's id gets 404, exactly as for a tenant that does not exist;
a platform admin may name any existing tenant. Members get 403.

The read: \`{tenant_id, fields: {<field>: {value, source: "tenant" | "platform"}}, effective: {<field>: value}}\`.

### PATCH rules

- A key present in the body is applied; an absent key is unchanged; an empty body \`{}\` changes nothing.
- \`null\` on an inheritable field clears the tenant's value: the next read shows the platform default
  with \`source: "platform"\`, and it follows later changes of that default.
- \`null\` on a kill switch (${killSwitches}) is 422 with
  \`{"loc": ["body", "<field>"], "msg": "Value error, ...", "type": "value_error", "input": null}\`.
- A value outside its constraint is 422 with one item per bad field in the pydantic shape, e.g.
  \`{"loc": ["body", "review_agreement_floor"], "msg": "Input should be less than or equal to 1", "type": "less_than_equal", "input": 1.5, "ctx": {"le": 1}}\`.
  All bad fields of one request are reported together, and nothing is changed.
- A field the registry does not know is 422 (\`extra_forbidden\`): a typo never passes silently.
- \`PATCH /v1/platform/defaults\` takes the same fields and constraints, but \`null\` is 422 for every
  field (each always has a platform default). \`default_template_id\` starts as \`null\` (no template)
  at platform level; templates belong to tenants, so it is normally set per tenant.

Every change is recorded in the audit trail (\`GET /v1/admin/audit\` of the tenant concerned, or
\`GET /v1/platform/audit\` for platform defaults) with \`details.changes: {<field>: {old, new}}\`, where
\`null\` means "not set by the tenant" (inherits). Fields sent with their current value are not listed.

## How the effective policy reaches the code

\`PolicyService.effective(tenant_id)\` (src/domain/policy/policy.service.ts) is the one function every
consumer uses. It caches per process and is memoised per request (\`request.policy()\`). A change
clears the cache of the process that made it at once; every other process (API or worker) polls a
version counter that each change bumps in the same transaction, every ${POLL_MS / 1000} s, and drops its cache when
it moves. A cached entry is trusted at most ${MAX_AGE_MS / 1000} s in any case.

Storage: \`tenant_policies\` holds one JSON object per tenant with only the fields it set;
\`platform_defaults\` one row per default a platform admin changed; \`policy_version\` the counter.

## Rate limits

- **Per tenant.** Every authenticated request counts against the acting tenant's
  \`rate_limit_per_minute\` (a platform admin using \`X-Tenant-Id\` counts against that tenant). Windows
  are fixed 60-second windows aligned to the clock (they start at :00 of every minute).
- **Headers.** Every limited response carries \`RateLimit-Limit\` (the limit), \`RateLimit-Remaining\`
  (requests left in the window) and \`RateLimit-Reset\` (seconds until the window ends).
- **Over the limit:** \`429\` with \`Retry-After\` (seconds until the window ends) and
  \`{"detail": "<what to do>", "code": "rate_limited"}\`.
- **Shared counters.** With \`REDIS_URL\` set, counters live in Redis (\`INCR\` + \`PEXPIRE\` on
  \`<QUIRE_REDIS_PREFIX>rl:<key>:<window>\`), so the limit holds across every API process. Without it
  they live in the process. A configured Redis that is unreachable is logged and counting falls back
  to the process until Redis answers again: requests are never refused because Redis is down.
- **Not limited:** \`/\`, \`/openapi.json\`, \`/docs\`, \`/v1/health\`, \`/v1/health/live\`,
  \`/v1/health/ready\`, and the token peek endpoints \`GET /v1/auth/invites/{raw_token}\` and
  \`GET /v1/auth/reset-tokens/{raw_token}\`.
- **Sign-in** has its own limits, separate from the account lockout (10 failures in 15 minutes lock
  an account for 15 minutes): failed sign-ins per client IP (\`QUIRE_AUTH_RATE_LIMIT_PER_IP\`, default
  ${envDefault('QUIRE_AUTH_RATE_LIMIT_PER_IP')} a minute) and per account email (\`QUIRE_LOGIN_RATE_LIMIT_PER_ACCOUNT\`, default ${envDefault('QUIRE_LOGIN_RATE_LIMIT_PER_ACCOUNT')} a minute).
  Failures count, successful sign-ins do not; once a limit is used up, every attempt from that IP or
  for that account is refused with 429 \`rate_limited\` until the window ends. The other public auth
  actions (\`POST /v1/auth/accept-invite\`, \`POST /v1/auth/reset-password\`) count every request
  against the same per-IP limit. The IP is the connection's address (Quire does not trust
  \`X-Forwarded-For\`).
`;
}
