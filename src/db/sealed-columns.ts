// Every column that holds a value sealed by the secrets box. `quire rotate-secret-key` walks this
// list, so a new sealed column joins it here with one line. Each value is bound to the context
// `<table>:<id>` (see src/lib/secret-box.ts).

export interface SealedColumn {
  table: string;
  column: string;
  /** Primary key column; the sealing context is `<table>:<value of this column>`. */
  idColumn: string;
}

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'forge_endpoints', column: 'credentials_sealed', idColumn: 'id' },
  { table: 'infra_endpoints', column: 'credentials_sealed', idColumn: 'id' },
  { table: 'connections', column: 'credentials_sealed', idColumn: 'id' },
];

export function sealingContext(table: string, id: string): string {
  return `${table}:${id}`;
}
