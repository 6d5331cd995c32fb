// Invitations and password resets by e-mail: sent when an smtp infrastructure endpoint is in
// effect for the user's tenant. The issuing response carries the token either way, so a mail
// that cannot be sent is logged (without the link) and the request still succeeds.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { guardOptionsFromConfig } from '../../lib/ssrf-guard.js';
import { resolveInfraEndpoint } from '../endpoints/resolve.js';
import type { IssuedToken, TokenKind } from '../identity/user-tokens.js';
import { smtpTransport } from './smtp-transport.js';

export interface MailDeps {
  db: Db;
  secretBox: SecretBox;
  config: Config;
}

export interface UserTokenMail {
  tenantId: string;
  to: string;
  kind: TokenKind;
  issued: IssuedToken;
}

export function composeUserTokenMail(mail: UserTokenMail): { subject: string; text: string } {
  const expires = mail.issued.expires_at.toISOString();
  if (mail.kind === 'invite') {
    return {
      subject: 'You are invited to Quire',
      text: `You have been invited to Quire.\n\nChoose a password to activate your account:\n${mail.issued.url}\n\nThis link works once and expires at ${expires}.\n`,
    };
  }
  return {
    subject: 'Reset your Quire password',
    text: `A password reset was requested for your Quire account.\n\nChoose a new password here:\n${mail.issued.url}\n\nThis link works once and expires at ${expires}. If you did not expect it, ignore this mail.\n`,
  };
}

/** Sends the mail; resolves false when no smtp endpoint is in effect for the tenant. */
export async function sendUserTokenMail(deps: MailDeps, mail: UserTokenMail): Promise<boolean> {
  const smtp = await resolveInfraEndpoint(deps.db, deps.secretBox, mail.tenantId, 'smtp');
  if (!smtp) return false;
  const transport = await smtpTransport(smtp, guardOptionsFromConfig(deps.config));
  try {
    await transport.sendMail({ from: smtp.from, to: mail.to, ...composeUserTokenMail(mail) });
  } finally {
    transport.close();
  }
  return true;
}

/** Sends in the background: the request never waits for, or fails on, the mail server. */
export function mailUserTokenInBackground(deps: MailDeps, mail: UserTokenMail, log: FastifyBaseLogger): void {
  sendUserTokenMail(deps, mail).then(
    (sent) => {
      if (sent) log.info({ tenant_id: mail.tenantId, kind: mail.kind }, 'user token mailed');
    },
    (err: Error) => log.warn({ tenant_id: mail.tenantId, kind: mail.kind, error: err.message }, 'user token mail could not be sent; the issuing response still carries the token'),
  );
}
