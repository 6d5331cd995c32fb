// JSON Schema `format` checks: ajv-formats' full formats, with `url` and the formats of JSON
// Schema 2020-12 that ajv-formats lacks (`iri`, `iri-reference`, `idn-hostname`, `idn-email`,
// src/lib/formats/) checked in linear time: a tenant's template may ask for any of them on text
// a model wrote. ajv-formats' `url` regex (dperini's) backtracks cubically in V8
// ("http://" + ":@a.aa/" × 600 + " " takes 0.2 s, × 1,400 three seconds); the same language is
// checked here in the linear-time engine: its three look-aheads (no private IPv4 ranges) are
// spelled as alternatives, and `\s` as JavaScript's set (RE2's is ASCII only).
import type { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { formatNames as ajvFormatNames } from 'ajv-formats/dist/formats.js';
import { isIdnEmail } from './formats/idn-email.js';
import { isIdnHostname } from './formats/idn-hostname.js';
import { isIri, isIriReference } from './formats/iri.js';
import { compileLinear } from './linear-regex.js';

const addAjvFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const SPACE = String.raw`\t\n\x{b}\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`;
const NOT_SPACE = `[^${SPACE}]`;
const OCTET = String.raw`\d\d?|1\d\d|2[0-4]\d|25[0-5]`;
// The first octet (1–223) but 10, 127, 169, 172 and 192, after which any second octet is public.
const FIRST = String.raw`[1-9]|1[1-9]|[2-9]\d|1[013-58]\d|12[0-689]|16[0-8]|17[013-9]|19[013-9]|2[01]\d|22[0-3]`;
const FIRST_TWO = [
  `(?:${FIRST})\\.(?:${OCTET})`,
  String.raw`169\.(?:\d\d?|1\d\d|2[0-4]\d|25[0-35])`, // not 169.254
  String.raw`192\.(?:\d\d?|1[0-57-9]\d|16[0-79]|2[0-4]\d|25[0-5])`, // not 192.168
  String.raw`172\.(?:\d|0\d|1[0-5]|3[2-9]|[4-9]\d|1\d\d|2[0-4]\d|25[0-5])`, // not 172.16–31
].join('|');
const IPV4 = String.raw`(?:${FIRST_TWO})\.(?:${OCTET})\.(?:[1-9]\d?|1\d\d|2[0-4]\d|25[0-4])`;
const LABEL = String.raw`(?:[a-z0-9\x{a1}-\x{ffff}]+-)*[a-z0-9\x{a1}-\x{ffff}]+`;
const HOST = String.raw`${LABEL}(?:\.${LABEL})*\.[a-z\x{a1}-\x{ffff}]{2,}`;
export const URL_SOURCE = String.raw`^(?:https?|ftp)://(?:${NOT_SPACE}+(?::${NOT_SPACE}*)?@)?(?:${IPV4}|${HOST})(?::\d{2,5})?(?:/${NOT_SPACE}*)?$`;

const url = compileLinear(URL_SOURCE, 'iu');

const OWN_FORMATS: Record<string, (text: string) => boolean> = {
  url: (text) => url.test(text),
  iri: isIri,
  'iri-reference': isIriReference,
  'idn-hostname': isIdnHostname,
  'idn-email': isIdnEmail,
};

/** Every format name `addFormats` checks: JSON Schema 2020-12's, and ajv-formats' OpenAPI ones (int32, byte …). */
export const FORMAT_NAMES: ReadonlySet<string> = new Set([...ajvFormatNames, ...Object.keys(OWN_FORMATS)]);

/** Adds every format to `ajv`, those of OWN_FORMATS checked in linear time. */
export function addFormats(ajv: Ajv): Ajv {
  addAjvFormats(ajv);
  for (const [name, validate] of Object.entries(OWN_FORMATS)) ajv.addFormat(name, { type: 'string', validate });
  return ajv;
}
