// The PPTX package (OPC): a ZIP of XML parts linked by relationship files. Only XML parts are
// decompressed (pictures and media are skipped), within size budgets against ZIP and XML bombs:
// the declared sizes are checked before anything is inflated, the inflated sizes after.
import { unzipSync } from 'fflate';
import { corruptDocument, resourceLimit } from '../errors.js';
import { type XNode, childrenOf, decodeXml, parseXml } from './xml.js';

/** Uncompressed XML of one part; real slides are tens of KB, a dense 1,000-row table a few MB. */
export const MAX_PART_XML_BYTES = 8 * 1024 * 1024;
/** Uncompressed XML of the whole deck; a 200-slide deck is ~20 MB. */
export const MAX_XML_BYTES = 64 * 1024 * 1024;
const MB = 1024 * 1024;

export interface Package {
  /** Parsed part by its path inside the ZIP, or undefined when missing or unparseable. */
  part(name: string): XNode | undefined;
  /** Why `part(name)` is undefined ("it is missing", the parser's complaint); undefined when it was read. */
  problem(name: string): string | undefined;
  /** Relationship id → target part path, for the part `name` (empty when its relationships cannot be read). */
  rels(name: string): Map<string, { target: string; type: string }>;
  /**
   * Why the relationships of `name` cannot be read (their part is not well-formed, or holds no
   * Relationships element); undefined when they were read, or when there is no relationship part:
   * a part without relationships has none (OPC).
   */
  relsProblem(name: string): string | undefined;
}

/** The part holding the relationships of `name`: ppt/slides/slide1.xml → ppt/slides/_rels/slide1.xml.rels. */
export function relsPartName(name: string): string {
  const slash = name.lastIndexOf('/');
  return `${name.slice(0, slash + 1)}_rels/${name.slice(slash + 1)}.rels`;
}

export function openPackage(bytes: Uint8Array): Package {
  let files: Record<string, Uint8Array>;
  let total = 0;
  let oversized: string | null = null;
  try {
    files = unzipSync(bytes, {
      filter: (f) => {
        if (!/\.(xml|rels)$/i.test(f.name) || oversized) return false;
        total += f.originalSize;
        if (f.originalSize > MAX_PART_XML_BYTES) oversized = `${f.name} expands to ${Math.round(f.originalSize / MB)} MB of XML, over the ${MAX_PART_XML_BYTES / MB} MB allowed per part`;
        else if (total > MAX_XML_BYTES) oversized = `the deck expands to more than ${MAX_XML_BYTES / MB} MB of XML`;
        return !oversized;
      },
    });
  } catch (err) {
    throw corruptDocument(`the PPTX container is damaged: ${(err as Error).message}`);
  }
  if (oversized) throw resourceLimit(oversized);
  // A ZIP may understate sizes in its headers: the inflated parts are checked as well.
  let inflated = 0;
  for (const [name, data] of Object.entries(files)) {
    inflated += data.length;
    if (data.length > MAX_PART_XML_BYTES) throw resourceLimit(`${name} expands to more than ${MAX_PART_XML_BYTES / MB} MB of XML`);
  }
  if (inflated > MAX_XML_BYTES) throw resourceLimit(`the deck expands to more than ${MAX_XML_BYTES / MB} MB of XML`);
  const cache = new Map<string, XNode | undefined>();
  const problems = new Map<string, string>();
  const part = (name: string) => {
    if (!cache.has(name)) {
      const data = files[name];
      let node: XNode | undefined;
      try {
        node = data ? parseXml(decodeXml(data)) : undefined;
        if (!data) problems.set(name, 'it is missing from the package');
      } catch (err) {
        // One broken part (a chart, a note) must not lose the whole deck; the reader says which.
        node = undefined;
        problems.set(name, (err as Error).message);
      }
      cache.set(name, node);
    }
    return cache.get(name);
  };
  const problem = (name: string) => {
    part(name);
    return problems.get(name);
  };
  const relsProblem = (name: string) => {
    const relsName = relsPartName(name);
    if (!files[relsName]) return undefined;
    const read = part(relsName);
    if (!read) return problems.get(relsName);
    return childrenOf(read, 'Relationships').length ? undefined : `it holds no Relationships element${read.children[0] ? ` (its root is <${read.children[0].tag}>)` : ''}`;
  };
  const rels = (name: string) => {
    const dir = name.slice(0, name.lastIndexOf('/') + 1);
    const out = new Map<string, { target: string; type: string }>();
    for (const r of childrenOf(childrenOf(part(relsPartName(name)), 'Relationships')[0], 'Relationship')) {
      if (r.attrs.TargetMode === 'External') continue;
      out.set(r.attrs.Id, { target: resolve(dir, r.attrs.Target ?? ''), type: r.attrs.Type ?? '' });
    }
    return out;
  };
  return { part, problem, rels, relsProblem };
}

/** Resolves a relationship target ("../slideLayouts/x.xml" or "/ppt/x.xml") against a folder. */
function resolve(dir: string, target: string): string {
  const parts = (target.startsWith('/') ? target.slice(1) : dir + target).split('/');
  const out: string[] = [];
  for (const p of parts) {
    if (p === '..') out.pop();
    else if (p !== '.' && p !== '') out.push(p);
  }
  return out.join('/');
}
