// Vertex AI's responseSchema is an OpenAPI 3.0 subset: upper-case types, `nullable` instead of a
// "null" type, no additionalProperties or $-keywords. A template's JSON schema is turned into it.

type Json = Record<string, unknown>;

const KEPT = ['description', 'enum', 'required', 'minItems', 'maxItems', 'minimum', 'maximum'] as const;

export function toVertexSchema(schema: unknown): Json {
  if (!schema || typeof schema !== 'object') return { type: 'STRING' };
  const s = schema as Json;
  const out: Json = {};
  let types = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];
  if (types.includes('null')) {
    out.nullable = true;
    types = types.filter((t) => t !== 'null');
  }
  const type = types[0] ?? (s.properties ? 'object' : s.items ? 'array' : 'string');
  out.type = type.toUpperCase();
  for (const key of KEPT) if (s[key] !== undefined) out[key] = s[key];
  if (Array.isArray(out.enum)) out.enum = (out.enum as unknown[]).filter((v) => v !== null).map(String);
  // Only date-time is a format Vertex knows for strings; a date's format goes in the description.
  if (s.format === 'date-time') out.format = 'date-time';
  else if (s.format === 'date') out.description = `${typeof s.description === 'string' ? `${s.description} ` : ''}(ISO date YYYY-MM-DD)`;
  if (type === 'object' && s.properties && typeof s.properties === 'object') {
    out.properties = Object.fromEntries(Object.entries(s.properties as Json).map(([k, v]) => [k, toVertexSchema(v)]));
  }
  if (type === 'array') out.items = toVertexSchema(s.items);
  return out;
}
