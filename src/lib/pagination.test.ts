import { describe, expect, it } from 'vitest';
import { RequestValidationError } from './errors.js';
import { decodeCursor, encodeCursor } from './pagination.js';

describe('cursors', () => {
  it('round-trip the position exactly, to the millisecond', () => {
    const at = new Date('2026-11-21T10:00:00.123Z');
    expect(decodeCursor(encodeCursor(at, 'usr_01'))).toEqual({ createdAt: '2026-11-21T10:00:00.123Z', id: 'usr_01' });
  });

  it('reject a cursor this API did not issue as a 422 on query.cursor', () => {
    const positions = [['0', 'x'], ['+275760-09-13T00:00:00.000Z', 'x'], ['2026-02-31T00:00:00.000Z', 'x'], ['2026-11-21T10:00:00.123Z', 'x\u0000'], ['2026-11-21T10:00:00.123Z', '']];
    const encoded = positions.map((p) => Buffer.from(JSON.stringify(p)).toString('base64url'));
    for (const bad of ['garbage', Buffer.from('[1,2]').toString('base64url'), Buffer.from('["not a date","x"]').toString('base64url'), ...encoded]) {
      try {
        decodeCursor(bad);
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(RequestValidationError);
        expect((err as RequestValidationError).items[0]?.loc).toEqual(['query', 'cursor']);
      }
    }
  });
});
