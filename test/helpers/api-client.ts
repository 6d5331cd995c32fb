// The typed API client the console uses (openapi-fetch over web/src/api/schema.d.ts, generated
// from /openapi.json by `npm run api:generate`), pointed at a test server. Tests that call the
// API through it break at compile time when the contract changes, exactly as the console does.
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../../web/src/api/schema.js';

export type ApiClient = Client<paths>;

export function apiClient(baseUrl: string, auth: { token?: string; tenant?: string } = {}): ApiClient {
  const headers: Record<string, string> = {};
  if (auth.token) headers.authorization = `Bearer ${auth.token}`;
  if (auth.tenant) headers['x-tenant-id'] = auth.tenant;
  return createClient<paths>({ baseUrl, headers });
}
