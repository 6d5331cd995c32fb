import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderPolicyDocs } from './policy.docs.js';

const file = new URL('../../../docs/policy.md', import.meta.url);

describe('docs/policy.md', () => {
  it('is the registry rendered (UPDATE_DOCS=1 rewrites it)', () => {
    const rendered = renderPolicyDocs();
    if (process.env.UPDATE_DOCS === '1') writeFileSync(file, rendered);
    expect(readFileSync(file, 'utf8')).toBe(rendered);
  });
});
