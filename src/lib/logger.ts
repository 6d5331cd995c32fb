// The processes' logger: JSON lines, on stdout unless told otherwise. Whatever code logs a field
// whose name names a secret (an endpoint's api_key, a session_token, credentials), at any depth,
// the line carries "[redacted]" in its place (lib/redact.ts judges the names).
import pino, { type DestinationStream, type Logger } from 'pino';
import { redactLogFields } from './redact.js';

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { pid: process.pid },
    formatters: { log: redactLogFields },
    // A request's headers are serialised after the formatter: named here too.
    redact: ['req.headers.authorization', 'req.headers.cookie'],
  };
  return destination ? pino(options, destination) : pino(options);
}
