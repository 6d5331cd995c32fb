// `webhook`: an HTTPS POST of {event, job} (or {event, batch} for a manifest), signed, with the
// delivery id in X-Quire-Delivery so the receiver can drop a repeat. Redirects are not followed
// (a redirect could lead past the SSRF guard's decision); any non-2xx answer is a failed attempt.
import fs from 'node:fs';
import tls from 'node:tls';
import { Agent, request } from 'undici';
import { type GuardOptions, assertOutboundAllowed, guardedLookup } from '../lib/ssrf-guard.js';
import { signWebhook } from './webhook-signature.js';

export interface WebhookConfig {
  url: string;
  headers?: Record<string, string>;
  timeout_seconds?: number;
}

export interface WebhookAnswer {
  ok: boolean;
  statusCode: number;
  latencyMs: number;
  /** The first 1 KiB of the answer, kept in the delivery log. */
  excerpt: string;
}

export const EXCERPT_BYTES = 1024;

/** Headers Quire sets itself; a configured header of the same name is dropped, never doubled. */
const RESERVED = /^(x-quire-.*|content-type|content-length|host|user-agent|transfer-encoding|connection)$/i;

function customHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).filter(([name]) => !RESERVED.test(name)));
}

const agents = new Map<string, Agent>();

/** One pooled agent per trust setting: the public roots plus QUIRE_EXTRA_CA_CERTS when set. */
function agentFor(guard: GuardOptions, extraCaFile: string | null): Agent {
  const key = `${guard.allowPrivateNetwork}:${extraCaFile ?? ''}`;
  let agent = agents.get(key);
  if (!agent) {
    const ca = extraCaFile ? [...tls.rootCertificates, fs.readFileSync(extraCaFile, 'utf8')] : undefined;
    agent = new Agent({ connect: { lookup: guardedLookup(guard) as never, timeout: 10_000, ...(ca ? { ca } : {}) } });
    agents.set(key, agent);
  }
  return agent;
}

export async function postWebhook(
  config: WebhookConfig,
  secret: string,
  delivery: { id: string; event: string; body: string },
  options: { guard: GuardOptions; extraCaFile: string | null },
): Promise<WebhookAnswer> {
  await assertOutboundAllowed(config.url, options.guard);
  const started = performance.now();
  const timeoutMs = (config.timeout_seconds ?? 30) * 1000;
  // The whole attempt is bounded, not only each wait for a byte: a receiver that trickles its
  // answer would otherwise hold a delivery loop past its lease, and the delivery would go twice.
  const deadline = AbortSignal.timeout(timeoutMs);
  const answer = await request(config.url, {
    method: 'POST',
    dispatcher: agentFor(options.guard, options.extraCaFile),
    headers: {
      ...customHeaders(config.headers),
      'content-type': 'application/json',
      'user-agent': 'Quire-Webhook/1',
      'x-quire-event': delivery.event,
      'x-quire-delivery': delivery.id,
      'x-quire-signature': signWebhook(secret, delivery.body),
    },
    body: delivery.body,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    signal: deadline,
  });
  // The status decides; of the body only the excerpt is read, for at most what is left of the time.
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of answer.body) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= EXCERPT_BYTES) break;
    }
  } catch (err) {
    if (!deadline.aborted) throw err;
  } finally {
    answer.body.destroy();
  }
  const latencyMs = Math.round(performance.now() - started);
  const excerpt = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
  return { ok: answer.statusCode >= 200 && answer.statusCode < 300, statusCode: answer.statusCode, latencyMs, excerpt };
}
