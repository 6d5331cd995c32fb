// A nodemailer transport for an smtp endpoint whose connection passes the SSRF guard.
import nodemailer from 'nodemailer';
import { type GuardOptions, assertOutboundAllowed, guardedLookup } from '../../lib/ssrf-guard.js';
import type { SmtpEndpointConfig } from '../endpoints/resolve.js';

/** The address to connect to, resolved once and checked by the SSRF guard (no second lookup to rebind). */
function guardedAddress(host: string, guard: GuardOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    guardedLookup(guard)(host, {}, (err, address) => (err ? reject(err) : resolve(address as string)));
  });
}

/** Creates a nodemailer transport whose connection passes the SSRF guard. */
export async function smtpTransport(config: SmtpEndpointConfig, guard: GuardOptions) {
  await assertOutboundAllowed(`smtp://${config.host}:${config.port}`, guard);
  const address = await guardedAddress(config.host, guard);
  return nodemailer.createTransport({
    host: address,
    // TLS still checks the certificate against the configured name.
    tls: { servername: config.host },
    port: config.port,
    secure: config.secure,
    ...(config.username ? { auth: { user: config.username, pass: config.password ?? '' } } : {}),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
}
