// The `idn-email` format: a mailbox as RFC 6531 writes it, RFC 5321's with Unicode allowed in
// the local part and in the domain's labels. The local part is a dot-string or a quoted string;
// the domain a host name (Unicode labels allowed) or an address literal in brackets.
import { compileLinear } from '../linear-regex.js';
import { isIdnHostname } from './idn-hostname.js';
import { IPV4_SOURCE, IPV6_SOURCE } from './ip.js';

// UTF8-non-ascii (RFC 6532): any character beyond ASCII, a lone surrogate (no character) aside.
const NON_ASCII = String.raw`\x{80}-\x{d7ff}\x{e000}-\x{10ffff}`;
const ATOM = `[A-Za-z0-9!#$%&'*+/=?^_\`{|}~\\-${NON_ASCII}]+`;
const DOT_STRING = String.raw`${ATOM}(?:\.${ATOM})*`;
// qtextSMTP (printable ASCII but `"` and `\`) or a quoted pair (`\` and any printable ASCII).
const QUOTED_STRING = String.raw`"(?:[\x{20}\x{21}\x{23}-\x{5b}\x{5d}-\x{7e}${NON_ASCII}]|\\[\x{20}-\x{7e}])*"`;
const ADDRESS_LITERAL = String.raw`\[(?:${IPV4_SOURCE}|IPv6:${IPV6_SOURCE})\]`;
const LOCAL_PART = compileLinear(`^(?:${DOT_STRING}|${QUOTED_STRING})$`, 'u');
const ADDRESS = compileLinear(`^${ADDRESS_LITERAL}$`);

/** A mailbox: local part "@" domain, Unicode allowed in both. */
export function isIdnEmail(text: string): boolean {
  // The domain follows the last "@": a local part's "@" is always quoted.
  const at = text.lastIndexOf('@');
  const domain = text.slice(at + 1);
  if (at < 1 || !LOCAL_PART.test(text.slice(0, at))) return false;
  if (domain.startsWith('[')) return ADDRESS.test(domain);
  // A mail domain names a host: no trailing root dot.
  return !domain.endsWith('.') && isIdnHostname(domain);
}
