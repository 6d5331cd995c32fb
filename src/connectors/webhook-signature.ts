// X-Quire-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>"> (decisions.md). The
// timestamp lets a receiver refuse replays; comparing in constant time is the receiver's part.
import { createHmac, timingSafeEqual } from 'node:crypto';

export function signWebhook(secret: string, body: string, unixSeconds = Math.floor(Date.now() / 1000)): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/** The check a receiver makes (Quire's own tests use it too). */
export function verifyWebhook(secret: string, body: string, header: string, toleranceSeconds = 300, now = Date.now() / 1000): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || !parts.v1 || Math.abs(now - t) > toleranceSeconds) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.${body}`).digest('hex'));
  const given = Buffer.from(parts.v1);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
