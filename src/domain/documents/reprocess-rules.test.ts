// interface.md's reprocess rules as pure functions: 422 for clear_template with template_id,
// 400 for a template with a mode that does not extract, and what is kept, swapped or cleared.
import { describe, expect, it } from 'vitest';
import { QuireError, RequestValidationError } from '../../lib/errors.js';
import { reprocessChanges, validateReprocessBody } from './jobs.service.js';

const job = { processing_mode: 'extraction' as const, template_id: 'tpl_a', page_range: '1-3' };

describe('reprocess rules', () => {
  it('rule 1: clear_template with a template_id is a validation error', () => {
    expect(() => validateReprocessBody({ clear_template: true, template_id: 'tpl_b' })).toThrow(RequestValidationError);
    expect(() => validateReprocessBody({ clear_template: true, template_id: null })).not.toThrow();
    expect(() => validateReprocessBody({ page_range: '2-1' })).toThrow(RequestValidationError);
  });

  it('rule 2: canonical or entities with a template_id is 400', () => {
    for (const mode of ['canonical', 'entities'] as const) {
      try {
        reprocessChanges(job, { processing_mode: mode, template_id: 'tpl_b' });
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(QuireError);
        expect((err as QuireError).kind).toBe('rule');
      }
    }
    // The kept mode counts too: a canonical job cannot take a template without switching mode.
    expect(() => reprocessChanges({ ...job, processing_mode: 'canonical' }, { template_id: 'tpl_b' })).toThrow(QuireError);
  });

  it('keeps, swaps or clears the template; keeps, narrows or widens the page range; changes the mode', () => {
    expect(reprocessChanges(job, {})).toMatchObject({ template_id: 'tpl_a', page_range: '1-3', processing_mode: 'extraction' });
    expect(reprocessChanges(job, { template_id: 'tpl_b' })).toMatchObject({ template_id: 'tpl_b' });
    expect(reprocessChanges(job, { template_id: null })).toMatchObject({ template_id: 'tpl_a' });
    expect(reprocessChanges(job, { clear_template: true })).toMatchObject({ template_id: null });
    expect(reprocessChanges(job, { page_range: '2' })).toMatchObject({ page_range: '2' });
    expect(reprocessChanges(job, { page_range: null })).toMatchObject({ page_range: null });
    expect(reprocessChanges(job, { processing_mode: 'canonical' })).toMatchObject({ processing_mode: 'canonical', template_id: 'tpl_a' });
  });
});
