// `test` of an infrastructure endpoint: one real round trip, answered as {ok, latency_ms, detail}.
// vlm/judge call the model through its SDK, ocr sends a blank page to the OCR service, smtp opens
// an SMTP session. Failures are answers, never errors; no credential appears in a detail.
import sharp from 'sharp';
import type { InfraType } from '../../db/endpoints-schema.js';
import type { GuardOptions } from '../../lib/ssrf-guard.js';
import { hideSecrets } from '../../models/backends/errors.js';
import { type RoundTripResult, describeFailure, modelRoundTrip } from '../../models/round-trip.js';
import { recognizeRemote } from '../../pipeline/ocr/remote/protocol.js';
import { smtpTransport } from '../mail/smtp-transport.js';
import type { OcrEndpointConfig, ResolvedInfra, SmtpEndpointConfig } from './resolve.js';

async function timed(credentials: Record<string, string | null>, what: string, run: () => Promise<string>): Promise<RoundTripResult> {
  const started = performance.now();
  try {
    const detail = await run();
    return { ok: true, latency_ms: Math.round(performance.now() - started), detail: `${what}: ${detail}` };
  } catch (err) {
    return { ok: false, latency_ms: Math.round(performance.now() - started), detail: hideSecrets(`${what}: ${describeFailure(err)}`, credentials) };
  }
}

async function ocrRoundTrip(config: OcrEndpointConfig, guard: GuardOptions): Promise<RoundTripResult> {
  const blank = await sharp({ create: { width: 64, height: 32, channels: 3, background: '#ffffff' } }).png().toBuffer();
  return timed({ api_key: config.api_key }, 'ocr', async () => {
    const answer = await recognizeRemote(config, blank, ['eng'], guard);
    return `the OCR service read a test page (${answer.words.length} words)`;
  });
}

async function smtpRoundTrip(config: SmtpEndpointConfig, guard: GuardOptions): Promise<RoundTripResult> {
  return timed({ password: config.password }, 'smtp', async () => {
    const transport = await smtpTransport(config, guard);
    try {
      await transport.verify();
    } finally {
      transport.close();
    }
    return `the SMTP server at ${config.host}:${config.port} accepted the session${config.username ? ' and the login' : ''}`;
  });
}

export function testInfraEndpoint<T extends InfraType>(type: T, config: ResolvedInfra[T], guard: GuardOptions): Promise<RoundTripResult> {
  switch (type) {
    case 'vlm':
    case 'judge':
      return modelRoundTrip(config as ResolvedInfra['vlm'], guard);
    case 'ocr':
      return ocrRoundTrip(config as ResolvedInfra['ocr'], guard);
    default:
      return smtpRoundTrip(config as ResolvedInfra['smtp'], guard);
  }
}
