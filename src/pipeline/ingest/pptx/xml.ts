// A thin, order-preserving view over fast-xml-parser's output. Order matters in DrawingML: runs
// and line breaks interleave inside a paragraph, and shapes are stacked in document order.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { windows1252 } from '../text-encoding.js';

export interface XNode {
  tag: string;
  attrs: Record<string, string>;
  children: XNode[];
  /** Concatenated direct text content. */
  text: string;
}

type Raw = Record<string, unknown>;

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  trimValues: false,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  // Numeric character references (&#169;, &#x2014;) are XML, not HTML, but only this option
  // decodes them; the HTML names it also knows never occur in well-formed OOXML.
  htmlEntities: true,
});

/**
 * A part's bytes as text, in the encoding it declares: a byte-order mark (UTF-16 or UTF-8), else
 * the XML declaration's `encoding` (ISO-8859-1, windows-1252…), else UTF-8 (XML 1.0, 4.3.3 and
 * appendix F). Throws on an encoding no decoder knows.
 */
export function decodeXml(data: Uint8Array): string {
  if (data[0] === 0xff && data[1] === 0xfe) return new TextDecoder('utf-16le').decode(data);
  if (data[0] === 0xfe && data[1] === 0xff) return new TextDecoder('utf-16be').decode(data);
  // UTF-16 without a mark still starts with "<" next to a zero byte.
  if (data[0] === 0x3c && data[1] === 0x00) return new TextDecoder('utf-16le').decode(data);
  if (data[0] === 0x00 && data[1] === 0x3c) return new TextDecoder('utf-16be').decode(data);
  const head = String.fromCharCode(...data.subarray(0, 200));
  const declared = /^(?:\xef\xbb\xbf)?<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(head)?.[1];
  // WHATWG reads Latin-1 labels as Windows-1252 too; Node without full ICU would not.
  if (declared && /^(windows-1252|cp1252|iso-8859-1|iso8859-1|latin1|l1|us-ascii|ascii)$/i.test(declared)) return windows1252(data);
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(declared ?? 'utf-8');
  } catch {
    throw new Error(`it declares the encoding "${declared}", which Quire cannot decode`);
  }
  return decoder.decode(data);
}

/**
 * A DOCTYPE after the XML declaration and comments. A comment ends at its first "-->" (as in XML,
 * where "--" may not occur inside one): a lazy `[\s\S]*?` there could also run on to a later
 * "-->", and a part of a few hundred "<!----><!-" took longer to refuse than any thread may block.
 */
const DOCTYPE_AFTER_PROLOG = /^[^<]*(?:<\?[^>]*\?>\s*)?(?:<!--(?:[^-]|-(?!->))*-->\s*)*<!DOCTYPE/i;

/**
 * Throws when the text is not well-formed XML (the parser alone reads a truncated part as if it
 * ended there) or declares a DOCTYPE, which OOXML parts may not (ECMA-376 Part 2, M1.17).
 */
export function parseXml(xml: string): XNode {
  if (DOCTYPE_AFTER_PROLOG.test(xml)) throw new Error('it declares a DOCTYPE, which Office files may not');
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new Error(`it is not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  const raw = parser.parse(xml) as Raw[];
  return { tag: '#document', attrs: {}, children: raw.map(convert).filter((n): n is XNode => n !== null), text: '' };
}

function convert(raw: Raw): XNode | null {
  const tag = Object.keys(raw).find((k) => k !== ':@');
  if (!tag || tag === '#text' || tag.startsWith('?')) return null;
  const kids = (raw[tag] as Raw[]) ?? [];
  const attrs = (raw[':@'] as Record<string, string>) ?? {};
  let text = '';
  const children: XNode[] = [];
  for (const k of kids) {
    if ('#text' in k) text += String(k['#text']);
    else {
      const c = convert(k);
      if (c) children.push(c);
    }
  }
  return { tag, attrs, children, text };
}

export const child = (n: XNode | undefined, tag: string): XNode | undefined => n?.children.find((c) => c.tag === tag);
export const childrenOf = (n: XNode | undefined, tag: string): XNode[] => n?.children.filter((c) => c.tag === tag) ?? [];

/** The first node with `tag` anywhere below `n` (depth first, document order). */
export function descendant(n: XNode | undefined, tag: string): XNode | undefined {
  if (!n) return undefined;
  for (const c of n.children) {
    if (c.tag === tag) return c;
    const d = descendant(c, tag);
    if (d) return d;
  }
  return undefined;
}

/** Follows a path of child tags: path(n, 'p:cSld', 'p:spTree'). */
export function path(n: XNode | undefined, ...tags: string[]): XNode | undefined {
  let cur = n;
  for (const t of tags) cur = child(cur, t);
  return cur;
}

export const num = (v: string | undefined, fallback = 0): number => {
  const n = v === undefined ? NaN : Number(v);
  return Number.isFinite(n) ? n : fallback;
};
