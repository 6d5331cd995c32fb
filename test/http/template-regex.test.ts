// Template patterns must run in the linear-time engine: one it cannot compile is a 422 at the rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID, type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
let admin: string;
beforeAll(async () => {
  h = await startHarness();
  admin = (await h.seedUser(DEFAULT_TENANT_ID, 'admin')).token!;
});
afterAll(() => h.close());

const template = (name: string, pattern: string) => ({
  name,
  json_schema: { type: 'object', properties: { invoice_number: { type: 'string' } } },
  validation_rules: [{ kind: 'pattern', field: 'invoice_number', params: { pattern } }],
});

describe('template pattern rules', () => {
  it('refuses backreferences and lookaround with 422 at the pattern, and stores nothing', async () => {
    for (const [i, pattern] of ['(a)\\1', '^(?=INV)', '(?<!x)y'].entries()) {
      const res = await h.request('POST', '/v1/templates', { token: admin, body: template(`regex-${i}`, pattern) });
      expect(res.status, pattern).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'validation_rules', 0, 'params', 'pattern'], type: 'value_error' });
    }
    const list = await h.request('GET', '/v1/templates', { token: admin });
    expect(list.body.items.filter((t: { name: string }) => t.name.startsWith('regex-'))).toEqual([]);
  });

  it('accepts a catastrophic-backtracking pattern, which the engine runs in linear time', async () => {
    const res = await h.request('POST', '/v1/templates', { token: admin, body: template('regex-ok', '^(a+)+$') });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });
});
