// Connections: where results go (destinations) and where documents come from (sources).
// Credentials are sealed by the secrets box the moment they arrive and opened only by the code
// that connects; reads show which keys are set, never a value.
import { openStore } from '../../connectors/index.js';
import { PathEscapeError, resolveUnderRoot, tenantFolder } from '../../connectors/local-path.js';
import type { SftpStore } from '../../connectors/sftp.js';
import { postWebhook } from '../../connectors/webhook.js';
import type { Config } from '../../config.js';
import type { Connection, Direction, Protocol } from '../../db/connections-schema.js';
import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import { sealingContext } from '../../db/sealed-columns.js';
import { conflict, notFound, validationError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { PageRequest } from '../../lib/pagination.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { type GuardOptions, OutboundBlockedError, assertOutboundAllowed } from '../../lib/ssrf-guard.js';
import type { Principal } from '../identity/principal.js';
import { templateIsLive } from '../documents/references.js';
import { assertCredentialsFollow, destinationOf } from '../endpoints/credential-destination.js';
import * as repo from './connections.repository.js';
import { validateConnectionShape } from './protocol-rules.js';
import { apiCredentials, configWithHeaders, sealHeaders, storedHeaders } from './webhook-headers.js';

export interface ConnectionsDeps {
  db: Db;
  box: SecretBox;
  config: Pick<Config, 'localRoot' | 'extraCaCerts'>;
  guard: GuardOptions;
}

export interface ConnectionCreateInput {
  name: string;
  protocol: Protocol;
  direction: Direction;
  config: Record<string, unknown>;
  credentials: Record<string, unknown>;
}

export interface ConnectionPatchInput {
  name?: string;
  direction?: Direction;
  config?: Record<string, unknown>;
  credentials?: Record<string, unknown>;
}

export const sealContext = (id: string) => sealingContext('connections', id);

/** Opens a connection's credentials (for the code that connects; never for a response). */
export function openCredentials(box: SecretBox, connection: Connection): Record<string, unknown> {
  return connection.credentials_sealed ? box.openJson<Record<string, unknown>>(connection.credentials_sealed, sealContext(connection.id)) : {};
}

/** Checks that need the machine or the database: the local root, outbound addresses, the template. */
async function checkReachability(deps: ConnectionsDeps, tenantId: string, protocol: Protocol, config: Record<string, unknown>): Promise<void> {
  const fail = (field: string, msg: string) => validationError([{ loc: ['body', 'config', field], msg, type: 'value_error', input: config[field] }]);
  if (protocol === 'local') {
    try {
      resolveUnderRoot(tenantFolder(deps.config.localRoot, tenantId), String(config.path));
    } catch (err) {
      if (err instanceof PathEscapeError) throw fail('path', err.message);
      throw err;
    }
  }
  const outbound = protocol === 'webhook' ? ['url', String(config.url)] : protocol === 's3' && config.endpoint_url ? ['endpoint_url', String(config.endpoint_url)] : protocol === 'sftp' ? ['host', `ssh://${String(config.host)}`] : null;
  if (outbound) {
    try {
      await assertOutboundAllowed(outbound[1]!, deps.guard);
    } catch (err) {
      if (err instanceof OutboundBlockedError) throw fail(outbound[0]!, err.message);
      if ((err as NodeJS.ErrnoException).code === 'ENOTFOUND') throw fail(outbound[0]!, `The host does not resolve: ${(err as Error).message}`);
      throw err;
    }
  }
  if (typeof config.template_id === 'string' && !(await templateIsLive(deps.db, tenantId, config.template_id))) {
    throw notFound(`Template ${config.template_id}`);
  }
}

function duplicateName(name: string) {
  return conflict('duplicate_name', `A connection named "${name}" already exists in this tenant; choose another name or update that one.`);
}

export async function createConnection(deps: ConnectionsDeps, p: Principal, input: ConnectionCreateInput): Promise<Connection> {
  validateConnectionShape(input);
  await checkReachability(deps, p.tenantId, input.protocol, input.config);
  const id = newId('con');
  const keys = Object.keys(input.credentials);
  const { config, sealed } = sealHeaders(input.config, input.credentials);
  try {
    return await repo.insertConnection(deps.db, {
      id,
      tenant_id: p.tenantId,
      name: input.name,
      protocol: input.protocol,
      direction: input.direction,
      config,
      credentials_sealed: Object.keys(sealed).length ? deps.box.sealJson(sealed, sealContext(id)) : null,
      credential_keys: keys,
      created_by: p.userId ?? p.apiKeyId,
    });
  } catch (err) {
    if (isUniqueViolation(err, 'connections_live_name')) throw duplicateName(input.name);
    throw err;
  }
}

export async function getConnection(db: Db, p: Principal, id: string): Promise<Connection> {
  const connection = await repo.findConnection(db, p.tenantId, id);
  if (!connection) throw notFound(`Connection ${id}`);
  return connection;
}

export async function listConnectionPage(db: Db, p: Principal, filters: { protocol?: Protocol; direction?: Direction }, page: PageRequest) {
  return repo.listConnections(db, p.tenantId, filters, page);
}

/**
 * PATCH: config and credentials are replaced whole when given, then the result is validated as a
 * whole. A webhook header sent back as its placeholder keeps the value stored under its name.
 */
export async function updateConnection(deps: ConnectionsDeps, p: Principal, id: string, patch: ConnectionPatchInput): Promise<Connection> {
  const current = await getConnection(deps.db, p, id);
  const given = patch.config ?? current.config;
  const direction = patch.direction ?? current.direction;
  const opened = openCredentials(deps.box, current);
  const credentials = patch.credentials ?? apiCredentials(opened);
  validateConnectionShape({ protocol: current.protocol, direction, config: given, credentials }, patch.credentials !== undefined);
  if (patch.config) await checkReachability(deps, p.tenantId, current.protocol, given);
  // Stored secrets go only where they were entered for: an SFTP password or key to its host, a
  // webhook's header values to its URL's origin (credential-destination.ts).
  if (current.protocol === 'sftp' && patch.credentials === undefined) assertCredentialsFollow(current.config, given);
  const sameReceiver = destinationOf(current.config, 'url') === destinationOf(given, 'url');
  const { config, sealed } = sealHeaders(given, credentials, sameReceiver ? storedHeaders(current.config, opened) : {});
  const keys = Object.keys(credentials);
  const resealed = patch.config !== undefined || patch.credentials !== undefined;
  try {
    const updated = await repo.updateConnection(deps.db, p.tenantId, id, {
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.direction !== undefined ? { direction } : {}),
      ...(resealed ? { config, credentials_sealed: Object.keys(sealed).length ? deps.box.sealJson(sealed, sealContext(id)) : null, credential_keys: keys } : {}),
    });
    if (!updated) throw notFound(`Connection ${id}`);
    return updated;
  } catch (err) {
    if (isUniqueViolation(err, 'connections_live_name')) throw duplicateName(patch.name ?? current.name);
    throw err;
  }
}

/** Soft delete: jobs and deliveries keep pointing at the record; pending deliveries to it fail. */
export async function deleteConnection(db: Db, p: Principal, id: string): Promise<void> {
  if (!(await repo.softDeleteConnection(db, p.tenantId, id))) throw notFound(`Connection ${id}`);
}

export interface TestAnswer {
  ok: boolean;
  latency_ms: number;
  detail: string;
}

/** A real round trip: a signed ping to a webhook; list (and write and delete a probe file, for destinations) on a store. */
export async function testConnection(deps: ConnectionsDeps, p: Principal, id: string): Promise<{ answer: TestAnswer; connection: Connection }> {
  let connection = await getConnection(deps.db, p, id);
  const credentials = openCredentials(deps.box, connection);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    if (connection.protocol === 'webhook') {
      const body = JSON.stringify({ event: 'connection.test', connection_id: connection.id, sent_at: new Date().toISOString() });
      const answer = await postWebhook(configWithHeaders(connection.config, credentials) as never, String(credentials.secret), { id: `test_${newId('con').slice(4)}`, event: 'connection.test', body }, { guard: deps.guard, extraCaFile: deps.config.extraCaCerts });
      return { connection, answer: { ok: answer.ok, latency_ms: elapsed(), detail: `The receiver answered ${answer.statusCode}${answer.ok ? '' : `: ${answer.excerpt.slice(0, 200)}`}.` } };
    }
    const store = await openStore({ tenant_id: connection.tenant_id, protocol: connection.protocol, config: connection.config, credentials }, deps);
    try {
      const detail = await store.probe(connection.direction !== 'source');
      // The protocol names the store openStore built (a type import keeps SFTP's client unloaded).
      const seenHostKey = connection.protocol === 'sftp' ? (store as SftpStore).seenHostKey : null;
      if (seenHostKey && !connection.config.host_key_sha256) {
        connection = (await repo.updateConnection(deps.db, p.tenantId, id, { config: { ...connection.config, host_key_sha256: seenHostKey } })) ?? connection;
        return { connection, answer: { ok: true, latency_ms: elapsed(), detail: `${detail} The host key is now pinned in config.host_key_sha256.` } };
      }
      return { connection, answer: { ok: true, latency_ms: elapsed(), detail } };
    } finally {
      await store.close();
    }
  } catch (err) {
    return { connection, answer: { ok: false, latency_ms: elapsed(), detail: describeFailure(err) } };
  }
}

/** A sentence about what went wrong, without anything secret (SDK errors never carry credentials). */
export function describeFailure(err: unknown): string {
  const e = err as { name?: string; message?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode ? ` (HTTP ${e.$metadata.httpStatusCode})` : '';
  return `${e.code ?? e.name ?? 'Error'}${status}: ${e.message ?? String(err)}`.slice(0, 500);
}
