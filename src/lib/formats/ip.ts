// IP addresses as RFC 3986 writes them (IPv6address, IPv4address), for the linear-time engine.

const DEC_OCTET = String.raw`(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])`;
export const IPV4_SOURCE = String.raw`${DEC_OCTET}(?:\.${DEC_OCTET}){3}`;

const H16 = '[0-9A-Fa-f]{1,4}';
const LS32 = `(?:${H16}:${H16}|${IPV4_SOURCE})`;
/** `n` groups of `h16 ":"`. */
const groups = (n: number) => (n ? `(?:${H16}:){${n}}` : '');
/** `[ *n( h16 ":" ) h16 ]`: up to n + 1 pieces before a "::". */
const before = (n: number) => (n < 0 ? '' : `(?:(?:${H16}:){0,${n}}${H16})?`);

export const IPV6_SOURCE = `(?:${[
  `${groups(6)}${LS32}`,
  `::${groups(5)}${LS32}`,
  `${before(0)}::${groups(4)}${LS32}`,
  `${before(1)}::${groups(3)}${LS32}`,
  `${before(2)}::${groups(2)}${LS32}`,
  `${before(3)}::${groups(1)}${LS32}`,
  `${before(4)}::${LS32}`,
  `${before(5)}::${H16}`,
  `${before(6)}::`,
].join('|')})`;
