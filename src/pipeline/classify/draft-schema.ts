// A template proposed from one document: its key-values become scalar fields, its tables arrays
// of items (one object per row, the header cells as columns), and its typed identifiers (invoice
// number, tax id, IBAN …) fields of their own. Names are snake_case; the printed label is kept as
// an alias so that the embedded extractor finds it again.
import type { CanonicalJson } from '../canonical/serialize.js';
import { parseDate } from '../entities/dates.js';
import type { Entity } from '../entities/recognize.js';
import { documentKind, draftName } from './draft-name.js';
import { snakeCase } from './snake-case.js';

export { snakeCase };

export interface DraftProposal {
  name: string;
  description: string;
  json_schema: Record<string, unknown>;
  field_examples: Record<string, unknown>;
  notes: string;
}

const MAX_FIELDS = 40;
const IDENTIFIER_TYPES = new Set(['invoice_number', 'order_number', 'customer_number', 'reference_number', 'tax_id', 'iban', 'email', 'phone', 'url']);

function scalarSchema(value: string): Record<string, unknown> {
  const trimmed = value.trim();
  if (/^[-+]?[$€£]?\s?\d[\d\s.,']*\s?[$€£%]?$/.test(trimmed) && /\d/.test(trimmed) && trimmed.replace(/\D/g, '').length <= 12) return { type: 'number' };
  if (trimmed.length <= 40 && parseDate(trimmed)) return { type: 'string', format: 'date' };
  return { type: 'string' };
}

/**
 * Printed text that can label a field: it has a word (two letters in a row) and is not itself a
 * value. A total row or a header row of figures read as key-values ("€ 593,36") labels nothing.
 */
function isLabel(text: string): boolean {
  return /\p{L}{2}/u.test(text) && scalarSchema(text).type !== 'number';
}

export function proposeDraft(canonical: CanonicalJson, entities: Pick<Entity, 'type' | 'text' | 'value'>[], title: string | null): DraftProposal {
  const properties: Record<string, Record<string, unknown>> = {};
  const examples: Record<string, unknown> = {};
  let kvCount = 0;
  let tableCount = 0;
  const add = (name: string, schema: Record<string, unknown>, example: unknown) => {
    if (!name || properties[name] || Object.keys(properties).length >= MAX_FIELDS) return false;
    properties[name] = schema;
    examples[name] = example;
    return true;
  };
  for (const page of canonical.pages) {
    for (const pair of page.key_values) {
      if (!isLabel(pair.key)) continue;
      const name = snakeCase(pair.key);
      if (add(name, { ...scalarSchema(pair.value), 'x-aliases': [pair.key.replace(/[:\s]+$/, '').trim()] }, pair.value)) kvCount++;
    }
  }
  for (const page of canonical.pages) {
    for (const table of page.tables) {
      if (table.rows < 2 || table.cols < 2) continue;
      const header = table.cells.filter((c) => c.row === 0).sort((a, b) => a.col - b.col);
      const columns: Record<string, Record<string, unknown>> = {};
      for (const cell of header) {
        if (!isLabel(cell.text)) continue;
        const name = snakeCase(cell.text);
        if (!name || columns[name]) continue;
        const sample = table.cells.find((c) => c.row === 1 && c.col === cell.col)?.text ?? '';
        columns[name] = { ...scalarSchema(sample), 'x-aliases': [cell.text.trim()] };
      }
      if (Object.keys(columns).length < 2) continue;
      const first = Object.fromEntries(Object.keys(columns).map((k, i) => [k, table.cells.find((c) => c.row === 1 && c.col === header[i]?.col)?.text ?? null]));
      if (add(tableCount === 0 ? 'items' : `items_${tableCount + 1}`, { type: 'array', items: { type: 'object', properties: columns } }, [first])) tableCount++;
    }
  }
  let entityCount = 0;
  for (const e of entities) {
    if (!IDENTIFIER_TYPES.has(e.type)) continue;
    if (add(e.type, { type: 'string', description: `the document's ${e.type.replace(/_/g, ' ')}` }, typeof e.value === 'string' ? e.value : e.text)) entityCount++;
  }
  const issuer = entities.find((e) => e.type === 'organization')?.text ?? null;
  const source = title ?? issuer;
  const kind = documentKind(canonical, title);
  const kinds = kind ? `${kind[0]!.toUpperCase()}${kind.slice(1)}s` : 'Documents';
  return {
    name: draftName(kind, title, issuer, linesAfter(canonical.text, title)),
    description: source ? `${kinds} like "${source.slice(0, 80)}"` : `${kinds} of one layout`,
    json_schema: { type: 'object', properties },
    field_examples: examples,
    notes: `Inferred from ${kvCount} key-value pair(s), ${tableCount} table(s) and ${entityCount} identifier(s).`,
  };
}

/**
 * The schema several documents share: a field is kept when at least `minShare` of them have it
 * (the forge and drafts made from several jobs). Examples come from the first document holding it.
 */
export function commonSchema(schemas: Record<string, unknown>[], minShare = 0.5): { json_schema: Record<string, unknown>; kept: string[]; dropped: string[] } {
  const count = new Map<string, number>();
  const first = new Map<string, unknown>();
  for (const schema of schemas) {
    const props = (schema.properties ?? {}) as Record<string, unknown>;
    for (const [name, def] of Object.entries(props)) {
      count.set(name, (count.get(name) ?? 0) + 1);
      if (!first.has(name)) first.set(name, def);
    }
  }
  const need = Math.max(1, Math.ceil(schemas.length * minShare));
  const kept = [...count].filter(([, n]) => n >= need).map(([name]) => name);
  const dropped = [...count].filter(([, n]) => n < need).map(([name]) => name);
  return { json_schema: { type: 'object', properties: Object.fromEntries(kept.map((k) => [k, first.get(k)])) }, kept, dropped };
}

/** The non-blank lines of the text after the title's own line (none when the title is not in it). */
function linesAfter(text: string, title: string | null): string[] {
  if (!title) return [];
  const lines = text.slice(0, 2000).split('\n').map((l) => l.trim()).filter(Boolean);
  const at = lines.findIndex((l) => l === title.trim());
  return at < 0 ? [] : lines.slice(at + 1, at + 4);
}
