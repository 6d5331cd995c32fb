// Opens the store behind a connection, by protocol. Webhooks are not stores: see webhook.ts.
// The S3 and SFTP clients load with the first connection of their protocol.
import type { Config } from '../config.js';
import type { Protocol } from '../db/connections-schema.js';
import type { GuardOptions } from '../lib/ssrf-guard.js';
import { LocalStore } from './local.js';
import { tenantFolder } from './local-path.js';
import type { S3Config, S3Credentials } from './s3.js';
import type { SftpConfig, SftpCredentials } from './sftp.js';
import type { FileStore } from './types.js';

export interface ConnectorDeps {
  config: Pick<Config, 'localRoot' | 'extraCaCerts'>;
  guard: GuardOptions;
}

export interface OpenedConnection {
  tenant_id: string;
  protocol: Protocol;
  config: Record<string, unknown>;
  credentials: Record<string, unknown>;
}

export async function openStore(connection: OpenedConnection, deps: ConnectorDeps): Promise<FileStore> {
  switch (connection.protocol) {
    case 'local':
      return new LocalStore(tenantFolder(deps.config.localRoot, connection.tenant_id), String(connection.config.path));
    case 's3':
      return new (await import('./s3.js')).S3Store(connection.config as unknown as S3Config, connection.credentials as unknown as S3Credentials, deps.guard);
    case 'sftp':
      return new (await import('./sftp.js')).SftpStore(connection.config as unknown as SftpConfig, connection.credentials as SftpCredentials, deps.guard);
    case 'webhook':
      throw new Error('a webhook connection is not a file store');
  }
}
