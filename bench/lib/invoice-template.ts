// A template (JSON schema) for an invoice2data document type, built from the fields of its
// expected output (../shared/data/invoice2data/compare/<name>.json): numbers become numbers, ISO
// dates become format: date, lists of objects become line items. Used by the eval and the tests.

type Json = Record<string, unknown>;

const ISO = /^\d{4}-\d{2}-\d{2}$/;
/** invoice2data bookkeeping fields, not printed on the document. */
export const NOT_ON_DOCUMENT = new Set(['desc', 'currency_symbol']);

function schemaOf(key: string, value: unknown): Json {
  if (typeof value === 'number') return { type: 'number' };
  if (typeof value === 'boolean') return { type: 'boolean' };
  if (typeof value === 'string') return ISO.test(value) || /date/.test(key) ? { type: 'string', format: 'date' } : { type: 'string' };
  if (Array.isArray(value)) {
    if (value.every((v) => v && typeof v === 'object' && !Array.isArray(v))) {
      const properties: Json = {};
      for (const item of value as Json[]) for (const [k, v] of Object.entries(item)) properties[k] ??= schemaOf(k, v);
      return { type: 'array', items: { type: 'object', properties } };
    }
    return { type: 'array', items: schemaOf(key, value[0]) };
  }
  return { type: 'string' };
}

export function templateSchemaFor(expected: Json): Json {
  const properties: Json = {};
  for (const [key, value] of Object.entries(expected)) if (!NOT_ON_DOCUMENT.has(key)) properties[key] = schemaOf(key, value);
  return { type: 'object', properties };
}
