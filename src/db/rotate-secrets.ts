// `quire rotate-secret-key`: re-seals every value in SEALED_COLUMNS that was sealed with a key
// other than the first configured one, so the old key can then be dropped from QUIRE_SECRET_KEY.
// Each row is rewritten only if it still holds the value that was read (a concurrent write wins).
import { sql } from 'kysely';
import type { SecretBox } from '../lib/secret-box.js';
import type { Db } from './database.js';
import { SEALED_COLUMNS, sealingContext } from './sealed-columns.js';

export interface RotationReport {
  table: string;
  column: string;
  /** Values re-sealed under the first key. */
  resealed: number;
  /** Values already sealed under it. */
  current: number;
  /** Values no configured key opens (ids listed, never values). */
  unreadable: string[];
}

const BATCH = 500;

export async function rotateSealedColumns(db: Db, box: SecretBox): Promise<RotationReport[]> {
  const reports: RotationReport[] = [];
  for (const { table, column, idColumn } of SEALED_COLUMNS) {
    const report: RotationReport = { table, column, resealed: 0, current: 0, unreadable: [] };
    let after = '';
    for (;;) {
      const { rows } = await sql<{ id: string; sealed: string }>`
        SELECT ${sql.ref(idColumn)} AS id, ${sql.ref(column)} AS sealed FROM ${sql.table(table)}
        WHERE ${sql.ref(column)} IS NOT NULL AND ${sql.ref(idColumn)} > ${after}
        ORDER BY ${sql.ref(idColumn)} LIMIT ${BATCH}`.execute(db);
      for (const { id, sealed } of rows) {
        if (!box.needsResealing(sealed)) {
          report.current++;
          continue;
        }
        const context = sealingContext(table, id);
        let plaintext: string;
        try {
          plaintext = box.open(sealed, context);
        } catch {
          report.unreadable.push(id);
          continue;
        }
        const resealed = box.seal(plaintext, context);
        const result = await sql`UPDATE ${sql.table(table)} SET ${sql.ref(column)} = ${resealed}
          WHERE ${sql.ref(idColumn)} = ${id} AND ${sql.ref(column)} = ${sealed}`.execute(db);
        if (Number(result.numAffectedRows ?? 0) > 0) report.resealed++;
      }
      if (rows.length < BATCH) break;
      after = rows[rows.length - 1]!.id;
    }
    reports.push(report);
  }
  return reports;
}
