// Assertions on the two error shapes of decisions.md: a 422 with pydantic-style `detail` items,
// and `{detail, code}` with a status for everything else.
import { expect } from 'vitest';
import type { Reply } from './harness.js';

/** A 422 whose `detail` holds (at least) each of `items`. */
export function expect422(res: Reply, ...items: Record<string, unknown>[]) {
  expect(res.status).toBe(422);
  for (const item of items) expect(res.body.detail).toContainEqual(item);
}

/** Exactly `{detail: <sentence>, code}` with `status`. */
export function expectError(res: Reply, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toEqual({ detail: expect.any(String), code });
}
