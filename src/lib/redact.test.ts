import { describe, expect, it } from 'vitest';
import { namesSecret, redact } from './redact.js';

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

  it("keeps the names of a header map and hides every value, whatever the header is called", () => {
    const out = redact({ config: { url: 'https://hooks.example.com', headers: { 'X-Team': 'receiver-key-1', 'X-Signature': 'receiver-key-2' } } });
    expect(out).toEqual({ config: { url: 'https://hooks.example.com', headers: { 'X-Team': '[redacted]', 'X-Signature': '[redacted]' } } });
  });

  it('shortens very long strings', () => {
    expect(String(redact('x'.repeat(5000))).length).toBeLessThan(2100);
  });

  it('judges a name by its last words: secrets hidden, counts and ids that mention one kept', () => {
    const secret = ['password', 'new_password', 'currentPassword', 'token', 'raw_token', 'session_token', 'access_token', 'secret', 'client_secret', 'secret_access_key', 'api_key', 'apiKey', 'x-api-key', 'private_key', 'passphrase', 'credentials', 'Authorization', 'service_account_json'];
    const kept = ['max_tokens', 'input_tokens', 'forge_monthly_token_quota', 'token_type', 'api_key_id', 'access_key_id', 'validation_pass_rate', 'credential_keys', 'email', 'keys'];
    expect(secret.filter((k) => !namesSecret(k))).toEqual([]);
    expect(kept.filter((k) => namesSecret(k))).toEqual([]);
  });
});
