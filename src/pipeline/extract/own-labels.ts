// Values the extractor reads for itself (the amount tendered, a subtotal, a booking id) from a
// small schema of its own, with the label machinery template fields use, but without the
// template's key-value pairs and table cells.
import { buildLabelIndex, findLabels } from './labels.js';
import { type Candidate, type ScalarContext, labelCandidates, labelStops } from './scalars.js';
import { schemaFields } from './schema-fields.js';

/** For the schema's field at an index: the best candidate `keep` accepts (most confident, then first printed). */
export type OwnLabelReader = (field: number, keep: (c: Candidate) => boolean) => Candidate | null;

export function ownLabelReader(schema: Record<string, unknown>, ctx: ScalarContext, plan: boolean): OwnLabelReader {
  const fields = schemaFields(schema);
  const matches = findLabels(buildLabelIndex(fields), ctx.lines, plan);
  const stops = labelStops(matches);
  const bare = { ...ctx, labelKeyValues: [], labelCells: [] };
  return (field, keep) =>
    labelCandidates(fields[field]!, bare, matches.filter((m) => m.field === field), stops)
      .filter(keep)
      .sort((a, b) => b.confidence - a.confidence || a.order - b.order)[0] ?? null;
}
