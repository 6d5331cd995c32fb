import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { redactLogFields } from './redact.js';

function linesOf(log: (logger: ReturnType<typeof createLogger>) => void): Record<string, unknown>[] {
  const out: string[] = [];
  const logger = createLogger('info', { write: (line: string) => void out.push(line) });
  log(logger);
  return out.map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('createLogger', () => {
  it('replaces secret-named fields at any depth, whoever logs them, and keeps the rest', () => {
    const [line] = linesOf((log) =>
      log.warn(
        {
          jobId: 'job_1',
          endpoint: { base_url: 'https://ocr.example', api_key: 'sk-live-123', headers: [{ Authorization: 'Bearer abc' }] },
          session_token: 'tok',
          usage: { max_tokens: 512, input_tokens: 10 },
          api_key_id: 'key_9',
        },
        'remote OCR failed',
      ),
    );
    expect(line).toMatchObject({
      msg: 'remote OCR failed',
      jobId: 'job_1',
      endpoint: { base_url: 'https://ocr.example', api_key: '[redacted]', headers: [{ Authorization: '[redacted]' }] },
      session_token: '[redacted]',
      usage: { max_tokens: 512, input_tokens: 10 },
      api_key_id: 'key_9',
    });
    expect(JSON.stringify(line)).not.toMatch(/sk-live-123|Bearer abc|"tok"/);
  });

  it('leaves errors to their serialiser: message and stack survive', () => {
    const [line] = linesOf((log) => log.error({ err: new Error('disk full'), attempt: 2 }, 'job run failed unexpectedly'));
    expect(line).toMatchObject({ attempt: 2, err: { type: 'Error', message: 'disk full' } });
    expect(String((line!.err as { stack: string }).stack)).toContain('disk full');
  });

  it('passes a line that holds no secret on as it is, without copying it', () => {
    const fields = { jobId: 'job_2', timings_ms: { pipeline: 8 }, pages: [1, 2] };
    expect(redactLogFields(fields)).toBe(fields);
    const [line] = linesOf((log) => log.info(fields, 'job settled'));
    expect(line).toMatchObject(fields);
  });
});
