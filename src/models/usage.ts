// Monthly model usage per tenant (migration 0007): each job's model calls are added to the totals
// of its tenant, month (UTC), backend and model.
import { sql } from 'kysely';
import type { Db, Tx } from '../db/database.js';
import type { ModelUsage } from '../pipeline/model-usage.js';

export const monthOf = (at: Date) => at.toISOString().slice(0, 7);

export async function addModelUsage(db: Db | Tx, tenantId: string, lines: ModelUsage[], at = new Date()): Promise<void> {
  for (const line of lines) {
    if (!line.calls) continue;
    await db
      .insertInto('model_usage_monthly')
      .values({ tenant_id: tenantId, month: monthOf(at), backend: line.backend, model: line.model, calls: line.calls, input_tokens: line.input_tokens, output_tokens: line.output_tokens, cost_usd: line.cost_usd })
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'month', 'backend', 'model']).doUpdateSet({
          calls: sql`model_usage_monthly.calls + excluded.calls`,
          input_tokens: sql`model_usage_monthly.input_tokens + excluded.input_tokens`,
          output_tokens: sql`model_usage_monthly.output_tokens + excluded.output_tokens`,
          cost_usd: sql`model_usage_monthly.cost_usd + excluded.cost_usd`,
          updated_at: sql`now()`,
        }),
      )
      .execute();
  }
}

/** A tenant's totals for one month, all backends and models together. */
export async function monthlyModelUsage(db: Db | Tx, tenantId: string, month: string): Promise<{ calls: number; input_tokens: number; output_tokens: number; cost_usd: number }> {
  const row = await db
    .selectFrom('model_usage_monthly')
    .select([
      sql<number>`coalesce(sum(calls), 0)::bigint`.as('calls'),
      sql<number>`coalesce(sum(input_tokens), 0)::bigint`.as('input_tokens'),
      sql<number>`coalesce(sum(output_tokens), 0)::bigint`.as('output_tokens'),
      sql<string>`coalesce(sum(cost_usd), 0)`.as('cost_usd'),
    ])
    .where('tenant_id', '=', tenantId)
    .where('month', '=', month)
    .executeTakeFirstOrThrow();
  return { calls: Number(row.calls), input_tokens: Number(row.input_tokens), output_tokens: Number(row.output_tokens), cost_usd: Number(row.cost_usd) };
}
