// Tenant policy and platform defaults (decisions.md "Tenant policy and platform defaults").
// Schemas come from the policy registry; rules live in domain/policy.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { assertTenantMayChange, policyTenant } from '../../domain/policy/policy.service.js';
import { type RouteModule, caller } from '../context.js';
import { RequestValidationError, type ValidationItem, validationError } from '../../lib/errors.js';
import {
  PlatformDefaultsPatch,
  PlatformDefaultsRead,
  RegistrySpec,
  TenantPolicyPatch,
  TenantPolicyRead,
  killSwitchNulls,
  registrySpec,
} from '../schemas/policy.js';

const TenantParams = Type.Object({ tenant_id: Type.String() });

/**
 * The PATCH body's 422 items: the schema's (attached, not thrown) plus one per kill switch sent as
 * null, in the order the fields appear in the body, so one answer names every bad field.
 */
function patchErrors(request: FastifyRequest): ValidationItem[] {
  const error = request.validationError;
  if (error && !(error instanceof RequestValidationError)) throw error;
  const items = [...(error?.items ?? []), ...killSwitchNulls(request.body)];
  const order = request.body && typeof request.body === 'object' ? Object.keys(request.body) : [];
  const position = (item: ValidationItem) => {
    const index = order.indexOf(String(item.loc[1]));
    return index === -1 ? Number.MAX_SAFE_INTEGER : index;
  };
  return items.sort((a, b) => position(a) - position(b));
}

export const policyRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/v1/admin/tenant-policy/defaults-view',
    {
      config: { permission: 'admin' },
      schema: { tags: ['tenant-policy'], operationId: 'admin.tenant_policy.defaults_view', summary: 'The platform defaults a tenant inherits', response: { 200: PlatformDefaultsRead } },
    },
    async () => ctx.policy.platformDefaults(),
  );

  app.get(
    '/v1/admin/tenant-policy/registry-spec',
    {
      config: { permission: 'admin' },
      schema: { tags: ['tenant-policy'], operationId: 'admin.tenant_policy.registry_spec', summary: 'Every policy field: type, constraint, inheritable, default, description', response: { 200: RegistrySpec } },
    },
    async () => registrySpec(),
  );

  app.get(
    '/v1/admin/tenant-policy/:tenant_id',
    {
      config: { permission: 'admin' },
      schema: { tags: ['tenant-policy'], operationId: 'admin.tenant_policy.get', summary: 'Each field\'s value and source, and the effective policy', params: TenantParams, response: { 200: TenantPolicyRead } },
    },
    async (request) => {
      const tenantId = await policyTenant(ctx.db, caller(request), request.params.tenant_id);
      return ctx.policy.read(tenantId);
    },
  );

  app.patch(
    '/v1/admin/tenant-policy/:tenant_id',
    {
      config: { permission: 'admin' },
      attachValidation: true,
      schema: {
        tags: ['tenant-policy'],
        operationId: 'admin.tenant_policy.update',
        summary: 'Change a tenant\'s policy: present keys are set, null inherits again, absent keys are unchanged',
        params: TenantParams,
        body: TenantPolicyPatch,
        response: { 200: TenantPolicyRead },
      },
    },
    async (request) => {
      const errors = patchErrors(request);
      if (errors.length) throw validationError(errors);
      const principal = caller(request);
      const tenantId = await policyTenant(ctx.db, principal, request.params.tenant_id);
      assertTenantMayChange(principal, request.body as Record<string, unknown>);
      const { read, changes } = await ctx.policy.patchTenant(principal, tenantId, request.body as Record<string, unknown>);
      request.audit = { resourceType: 'tenant_policy', resourceId: tenantId, tenantId, details: { changes } };
      return read;
    },
  );

  app.delete(
    '/v1/admin/tenant-policy/:tenant_id',
    {
      config: { permission: 'admin' },
      schema: {
        tags: ['tenant-policy'],
        operationId: 'admin.tenant_policy.delete',
        summary: 'Reset a tenant to inherit every field (kill switches included; a tenant admin keeps the platform-controlled ones); answers the fresh policy',
        params: TenantParams,
        response: { 200: TenantPolicyRead },
      },
    },
    async (request) => {
      const principal = caller(request);
      const tenantId = await policyTenant(ctx.db, principal, request.params.tenant_id);
      const { read, changes } = await ctx.policy.resetTenant(principal, tenantId);
      request.audit = { resourceType: 'tenant_policy', resourceId: tenantId, tenantId, details: { changes } };
      return read;
    },
  );

  app.get(
    '/v1/platform/defaults',
    {
      config: { permission: 'platform_admin' },
      schema: { tags: ['platform'], operationId: 'platform.defaults.get', summary: 'The platform defaults every tenant inherits', response: { 200: PlatformDefaultsRead } },
    },
    async () => ctx.policy.platformDefaults(),
  );

  app.patch(
    '/v1/platform/defaults',
    {
      config: { permission: 'platform_admin' },
      schema: {
        tags: ['platform'],
        operationId: 'platform.defaults.update',
        summary: 'Change platform defaults (null is refused: every field always has one)',
        body: PlatformDefaultsPatch,
        response: { 200: PlatformDefaultsRead },
      },
    },
    async (request) => {
      const { read, changes } = await ctx.policy.patchPlatform(caller(request), request.body as Record<string, unknown>);
      request.audit = { resourceType: 'platform_defaults', tenantId: null, details: { changes } };
      return read;
    },
  );
};
