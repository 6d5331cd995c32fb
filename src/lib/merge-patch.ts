// JSON Merge Patch (RFC 7386, section 2): objects merge key by key, null removes a key, anything
// else (arrays included) replaces the target. Returns a new value; the inputs are not changed.
// Member names are data: "__proto__" or "constructor" in a patch are keys like any other, read
// and written as own properties, never the object's prototype.
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else {
      const merged = mergePatch(Object.hasOwn(result, key) ? result[key] : undefined, value);
      Object.defineProperty(result, key, { value: merged, enumerable: true, writable: true, configurable: true });
    }
  }
  return result;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
