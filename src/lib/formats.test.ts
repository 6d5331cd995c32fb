import { describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { addFormats } from './formats.js';
import { schemaProblems } from '../models/extraction/answer.js';

const isUrl = addFormats(new Ajv({ strict: false })).compile({ type: 'string', format: 'url' });
const ajvFormatsUrl = fullFormats.url as RegExp;

describe('url format', () => {
  it('accepts and refuses what ajv-formats does', () => {
    const good = [
      'http://foo.com/blah_blah', 'https://www.example.com/foo/?bar=baz&inga=42&quux', 'http://userid:password@example.com:8080/',
      'http://142.42.1.1:8080/', 'http://✪df.ws/123', 'http://उदाहरण.परीक्षा', 'ftp://foo.bar/baz', 'HTTPS://Example.COM', 'http://172.32.0.1',
      'http://10.0.0.1@example.com', 'http://169.253.1.1', 'http://192.169.1.1', 'http://a-b.c-d.museum/#x',
    ];
    const bad = [
      'http://', 'http://.', 'http://10.1.1.1', 'http://127.0.0.1', 'http://169.254.1.1', 'http://192.168.1.1', 'http://172.16.0.1', 'http://172.31.255.1',
      'http://224.1.1.1', 'http://1.1.1.255', 'http://foo.bar?q=Spaces should be encoded', 'rdar://1234', 'http:// shouldfail.com', 'http://foo.com/\u00a0',
      'http://foo.com/a\u2028b', 'http://-error-.invalid/', 'http://a.b', 'example.com',
    ];
    for (const s of good) expect([s, isUrl(s)]).toEqual([s, true]);
    for (const s of bad) expect([s, isUrl(s)]).toEqual([s, false]);
    for (const s of [...good, ...bad]) expect([s, isUrl(s)]).toEqual([s, ajvFormatsUrl.test(s)]);
  });

  it('draws the private IPv4 ranges where ajv-formats does, octet by octet', () => {
    const differ: string[] = [];
    for (let a = 0; a < 260; a++) {
      for (let b = 0; b < 260; b++) {
        for (const s of [`http://${a}.${b}.0.1`, `http://${a}.0${b}.255.254/x`]) if (isUrl(s) !== ajvFormatsUrl.test(s)) differ.push(s);
      }
    }
    expect(differ).toEqual([]);
  });

  it('checks a long crafted text in one pass (ajv-formats backtracks cubically on it)', () => {
    const crafted = `http://${':@a.aa/'.repeat(15_000)} `;
    expect(isUrl(crafted)).toBe(false);
    expect(isUrl(`http://example.com/${'a'.repeat(100_000)}`)).toBe(true);
  });

  it('is the check a model answer meets when a template asks for a url', () => {
    const schema = { type: 'object', properties: { site: { type: 'string', format: 'url' } } };
    expect(schemaProblems(schema, { site: `http://${':@a.aa/'.repeat(15_000)} ` })).toEqual(['site: must match format "url"']);
    expect(schemaProblems(schema, { site: 'https://example.com/invoices/42' })).toEqual([]);
  });
});
