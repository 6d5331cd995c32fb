import { describe, expect, it } from 'vitest';
import { redact } from './redact.js';

describe('redact', () => {
  it('hides every value whose key names a secret, at any depth', () => {
    const out = redact({
      email: 'a@b.c',
      password: 'hunter2hunter2',
      new_password: 'x',
      nested: { api_key: 'k', credentials: { secret_access_key: 's' }, list: [{ token: 't', keep: 1 }] },
      Authorization: 'Bearer x',
    });
    expect(out).toEqual({
      email: 'a@b.c',
      password: '[redacted]',
      new_password: '[redacted]',
      nested: { api_key: '[redacted]', credentials: '[redacted]', list: [{ token: '[redacted]', keep: 1 }] },
      Authorization: '[redacted]',
    });
  });

  it('shortens very long strings', () => {
    expect(String(redact('x'.repeat(5000))).length).toBeLessThan(2100);
  });
});
