// Field paths in extracted data: "vendor.name", "lines[2].qty", and item paths "lines[].qty"
// that stand for the field in every item.

export interface Located {
  /** Concrete path ("lines[2].qty"). */
  path: string;
  value: unknown;
}

type Step = { key: string; index: number | 'all' | null };

/**
 * Keys that reach an object's prototype instead of its own data. A path through one of them
 * (a template's `post_processing.defaults` key such as "__proto__.x") would write onto the
 * prototype every object of the process shares: such paths name nothing and set nothing.
 */
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** The value of `key` when `value` is a plain object holding it as its own property. */
function ownValue(value: unknown, key: string): unknown {
  return value && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}

export function parsePath(path: string): Step[] {
  return path.split('.').map((part) => {
    const m = /^([^[\]]+)(?:\[(\d*)\])?$/.exec(part);
    if (!m) return { key: part, index: null };
    return { key: m[1]!, index: m[2] === undefined ? null : m[2] === '' ? 'all' : Number(m[2]) };
  });
}

/** Every value a path names in `data` (one for a plain path, one per item for an item path). */
export function valuesAt(data: unknown, path: string): Located[] {
  let current: Located[] = [{ path: '', value: data }];
  for (const step of parsePath(path)) {
    const next: Located[] = [];
    for (const { path: p, value } of current) {
      const here = p ? `${p}.${step.key}` : step.key;
      const v = ownValue(value, step.key);
      if (step.index === null) next.push({ path: here, value: v });
      else if (Array.isArray(v)) {
        if (step.index === 'all') v.forEach((item, i) => next.push({ path: `${here}[${i}]`, value: item }));
        else next.push({ path: `${here}[${step.index}]`, value: v[step.index] });
      }
    }
    current = next;
  }
  return current;
}

/** "lines[2].qty" → "lines[].qty" (the path as a template names it). */
export function genericPath(path: string): string {
  return path.replace(/\[\d+\]/g, '[]');
}

export function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '') || (Array.isArray(value) && value.length === 0);
}

/**
 * Sets a field's value in extracted data at its dotted schema path ("vendor.name"), creating
 * objects on the way. Names are read and written as own properties: even a name the schema walk
 * would never give (a prototype key, see schema-fields.ts) could not reach an object's prototype,
 * which every object of the process shares.
 */
export function setFieldPath(data: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let target = data;
  for (const part of parts.slice(0, -1)) {
    const next = Object.hasOwn(target, part) ? target[part] : undefined;
    if (next && typeof next === 'object') {
      target = next as Record<string, unknown>;
      continue;
    }
    const created: Record<string, unknown> = {};
    defineOwn(target, part, created);
    target = created;
  }
  defineOwn(target, parts[parts.length - 1]!, value);
}

function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Sets a value at a concrete path, creating objects on the way (arrays must exist). A path
 * through a prototype key sets nothing.
 */
export function setAt(data: Record<string, unknown>, path: string, value: unknown): void {
  const steps = parsePath(path);
  if (steps.some((step) => PROTOTYPE_KEYS.has(step.key))) return;
  let target: Record<string, unknown> = data;
  steps.forEach((step, i) => {
    const last = i === steps.length - 1;
    if (step.index === null || step.index === 'all') {
      if (last) target[step.key] = value;
      else {
        if (!target[step.key] || typeof target[step.key] !== 'object') target[step.key] = {};
        target = target[step.key] as Record<string, unknown>;
      }
      return;
    }
    if (!Array.isArray(target[step.key])) target[step.key] = [];
    const arr = target[step.key] as unknown[];
    if (last) arr[step.index] = value;
    else {
      if (!arr[step.index] || typeof arr[step.index] !== 'object') arr[step.index] = {};
      target = arr[step.index] as Record<string, unknown>;
    }
  });
}
