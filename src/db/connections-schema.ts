// Row types of connections, deliveries and sources (migration 0008_connections), as Kysely sees them.
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { NullableTimestamp, Timestamp } from './column-types.js';

export type Protocol = 's3' | 'webhook' | 'local' | 'sftp';
export type Direction = 'source' | 'destination' | 'both';
export type DeliveryStatus = 'pending' | 'delivering' | 'delivered' | 'failed';
export type DeliveryKind = 'job' | 'manifest';

type JsonObject = ColumnType<Record<string, unknown>, string | undefined, string>;

export interface ConnectionsTable {
  id: string;
  tenant_id: string;
  name: string;
  protocol: Protocol;
  direction: Direction;
  config: JsonObject;
  /** The credentials object sealed by the secrets box (context `connections:<id>`, listed in sealed-columns.ts); never returned. */
  credentials_sealed: string | null;
  /** Names of the credentials set, so reads show `{<key>: "set"}` without opening the box. */
  credential_keys: ColumnType<string[], string[] | undefined, string[]>;
  next_poll_at: Timestamp;
  last_polled_at: NullableTimestamp;
  last_poll_error: string | null;
  /** The poll that holds the connection (migration 0018_source_poll_lease); null when none runs. */
  poll_owner: string | null;
  /** Until when that poll's lease holds; a poll extends it as it goes. */
  poll_lease_expires_at: NullableTimestamp;
  /** A live connection of a suspended or deleted tenant, kept out of the source claim's index (migration 0020). */
  tenant_paused: ColumnType<boolean, boolean | undefined, boolean>;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: NullableTimestamp;
}

export interface DeliveriesTable {
  id: string;
  tenant_id: string;
  connection_id: string;
  kind: DeliveryKind;
  event: string;
  job_id: string | null;
  batch_id: string | null;
  status: ColumnType<DeliveryStatus, DeliveryStatus | undefined, DeliveryStatus>;
  attempts: ColumnType<number, number | undefined, number>;
  max_attempts: ColumnType<number, number | undefined, number>;
  run_after: Timestamp;
  lease_owner: string | null;
  lease_expires_at: NullableTimestamp;
  /** A pending or delivering delivery of a suspended tenant, kept out of the claim's index (migration 0020). */
  tenant_paused: ColumnType<boolean, boolean | undefined, boolean>;
  last_error: string | null;
  delivered_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface DeliveryAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  tenant_id: string;
  attempt: number;
  worker: string | null;
  outcome: 'delivered' | 'retry' | 'failed';
  status_code: number | null;
  latency_ms: number;
  response_excerpt: string | null;
  error: string | null;
  created_at: Timestamp;
}

export interface SourceFilesTable {
  id: Generated<number>;
  tenant_id: string;
  connection_id: string;
  path: string;
  fingerprint: string;
  size_bytes: number;
  job_id: string | null;
  after_done_at: NullableTimestamp;
  created_at: Timestamp;
}

export interface ConnectionTables {
  connections: ConnectionsTable;
  deliveries: DeliveriesTable;
  delivery_attempts: DeliveryAttemptsTable;
  source_files: SourceFilesTable;
}

export type Connection = Selectable<ConnectionsTable>;
export type Delivery = Selectable<DeliveriesTable>;
export type DeliveryAttempt = Selectable<DeliveryAttemptsTable>;
