// The `iri` and `iri-reference` formats: RFC 3987's grammar, a URI's (RFC 3986) with the
// characters beyond ASCII that an IRI may hold as they are. Spelled for the linear-time engine
// (a model's answer or a document's text is checked here), rule by rule as the RFC names them.
import { compileLinear } from '../linear-regex.js';
import { IPV6_SOURCE } from './ip.js';

const UCSCHAR = String.raw`\x{a0}-\x{d7ff}\x{f900}-\x{fdcf}\x{fdf0}-\x{ffef}\x{10000}-\x{1fffd}\x{20000}-\x{2fffd}\x{30000}-\x{3fffd}\x{40000}-\x{4fffd}\x{50000}-\x{5fffd}\x{60000}-\x{6fffd}\x{70000}-\x{7fffd}\x{80000}-\x{8fffd}\x{90000}-\x{9fffd}\x{a0000}-\x{afffd}\x{b0000}-\x{bfffd}\x{c0000}-\x{cfffd}\x{d0000}-\x{dfffd}\x{e1000}-\x{efffd}`;
const IPRIVATE = String.raw`\x{e000}-\x{f8ff}\x{f0000}-\x{ffffd}\x{100000}-\x{10fffd}`;
const UNRESERVED = String.raw`A-Za-z0-9\-._~`;
const SUB_DELIMS = String.raw`!$&'()*+,;=`;
const PCT = '%[0-9A-Fa-f]{2}';

const IUNRESERVED = `${UNRESERVED}${UCSCHAR}`;
const IPCHAR = `(?:[${IUNRESERVED}${SUB_DELIMS}:@]|${PCT})`;
const SCHEME = String.raw`[A-Za-z][A-Za-z0-9+\-.]*`;
const IUSERINFO = `(?:[${IUNRESERVED}${SUB_DELIMS}:]|${PCT})*`;
const IP_LITERAL = String.raw`\[(?:${IPV6_SOURCE}|[Vv][0-9A-Fa-f]+\.[${UNRESERVED}${SUB_DELIMS}:]+)\]`;
// IPv4address is a reg-name as well, so the host needs no rule of its own for it.
const IREG_NAME = `(?:[${IUNRESERVED}${SUB_DELIMS}]|${PCT})*`;
const IAUTHORITY = `(?:${IUSERINFO}@)?(?:${IP_LITERAL}|${IREG_NAME})(?::[0-9]*)?`;
const ISEGMENT = `${IPCHAR}*`;
const ISEGMENT_NZ = `${IPCHAR}+`;
const ISEGMENT_NZ_NC = `(?:[${IUNRESERVED}${SUB_DELIMS}@]|${PCT})+`;
const IPATH_ABEMPTY = `(?:/${ISEGMENT})*`;
const IPATH_ABSOLUTE = `/(?:${ISEGMENT_NZ}(?:/${ISEGMENT})*)?`;
const IPATH_ROOTLESS = `${ISEGMENT_NZ}(?:/${ISEGMENT})*`;
const IPATH_NOSCHEME = `${ISEGMENT_NZ_NC}(?:/${ISEGMENT})*`;
const IQUERY = `(?:${IPCHAR}|[${IPRIVATE}/?])*`;
const IFRAGMENT = `(?:${IPCHAR}|[/?])*`;
const TAIL = `(?:\\?${IQUERY})?(?:#${IFRAGMENT})?`;

const IHIER_PART = `//${IAUTHORITY}${IPATH_ABEMPTY}|${IPATH_ABSOLUTE}|${IPATH_ROOTLESS}|`;
const IRELATIVE_PART = `//${IAUTHORITY}${IPATH_ABEMPTY}|${IPATH_ABSOLUTE}|${IPATH_NOSCHEME}|`;
const IRI_SOURCE = `^${SCHEME}:(?:${IHIER_PART})${TAIL}$`;
const IRELATIVE_REF_SOURCE = `^(?:${IRELATIVE_PART})${TAIL}$`;

const iri = compileLinear(IRI_SOURCE, 'u');
const irelativeRef = compileLinear(IRELATIVE_REF_SOURCE, 'u');

/** An absolute IRI (a scheme, then the rest). */
export const isIri = (text: string): boolean => iri.test(text);

/** An IRI or a relative reference to one. */
export const isIriReference = (text: string): boolean => iri.test(text) || irelativeRef.test(text);
