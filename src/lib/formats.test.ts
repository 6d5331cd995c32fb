import { describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { FORMAT_NAMES, addFormats } from './formats.js';
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

describe('the formats of JSON Schema 2020-12 that ajv-formats lacks', () => {
  const check = (format: string) => addFormats(new Ajv({ strict: false })).compile({ type: 'string', format });

  it('names every standard format among those checked', () => {
    const standard = ['date', 'time', 'date-time', 'duration', 'email', 'idn-email', 'hostname', 'idn-hostname', 'ipv4', 'ipv6', 'uri', 'uri-reference', 'iri', 'iri-reference', 'uuid', 'uri-template', 'json-pointer', 'relative-json-pointer', 'regex'];
    expect(standard.filter((f) => !FORMAT_NAMES.has(f))).toEqual([]);
  });

  it('iri: an absolute IRI, Unicode as it is', () => {
    const iri = check('iri');
    const good = [
      'https://bücher.example/straße?jahr=2024#kapitel-3', 'http://例え.テスト/パス', 'urn:isbn:9783161484100', 'mailto:zoë@example.org', 'file:/etc/hosts',
      'http://[2001:db8::7]:8080/x', 'http://[v7.a:b]/', 'https://example.com/a%20b', 'http://user:pä@host/', 'http://ex.com/𝔘𝔫𝔦', 'http://ex.com/?q=\u{e000}',
    ];
    const bad = [
      '/relative/path', 'straße', 'http://bücher example', 'http://ex.com/a\\b', 'http://ex.com/%zz', 'http://2001:db8::7/', 'http://[::ffff:10.0.0.01]/',
      'http://ex.com/\n', '1http://ex.com', 'http://ex.com/#a#b', 'http://ex.com/<tag>', 'http://ex.com/\ud800', 'http://ex.com/\u{e000}',
    ];
    for (const s of good) expect([s, iri(s)]).toEqual([s, true]);
    for (const s of bad) expect([s, iri(s)]).toEqual([s, false]);
  });

  it('iri-reference: an IRI or a relative reference', () => {
    const ref = check('iri-reference');
    for (const s of ['https://bücher.example/', '/agb/zahlung#frist', 'straße/3', '//bücher.example/x', '?q=ü', '#ümlaut', '', '../up']) expect([s, ref(s)]).toEqual([s, true]);
    for (const s of ['agb\\zahlung', '#a\\b', '/a b', '%', ':no-scheme', '//[::1', '/x\n']) expect([s, ref(s)]).toEqual([s, false]);
  });

  it('idn-hostname: a host name whose labels may be Unicode', () => {
    const host = check('idn-hostname');
    const good = ['bücher.example', 'mail.bücher.example.', 'xn--bcher-kva.example', 'EXAMPLE.com', '例え.テスト', 'l·l.example', 'ελλάδα.gr', 'a1-b2', '255.255.255.255'];
    const bad = [
      '-mail.example', 'mail-.example', 'ab--cd.example', 'xn--zz.example', 'bücher..example', '.example', 'bü cher.example', 'bücher_shop.example', 'bücher%41.example',
      '[::1]', 'a·b.example', '\u0300abc.example', 'ab\u0640c.example', `${'ü'.repeat(60)}.example`, `${'a'.repeat(64)}.example`, `${'abcdefghi.'.repeat(26)}com`, '',
    ];
    for (const s of good) expect([s, host(s)]).toEqual([s, true]);
    for (const s of bad) expect([s, host(s)]).toEqual([s, false]);
  });

  it('idn-email: a mailbox, Unicode in the local part and the domain', () => {
    const email = check('idn-email');
    const good = ['rechnung@bücher.example', 'zoë.weiß@example.org', '用户@例子.广告', '"jane doe"@example.com', '"a\\"b"@example.com', 'ops+bills@[192.0.2.1]', 'ops@[IPv6:2001:db8::1]', 'x@example'];
    const bad = [
      'rechnung at bücher.example', 'rechnung@', '@bücher.example', '.a@example.com', 'a.@example.com', 'a..b@example.com', 'a b@example.com', '"a"b@example.com',
      'a@-bad-.example', 'a@example.com.', 'a@[192.0.2.300]', 'a@[1.2.3.4', 'a@b@example.com', 'one@example.com, two@example.com', '"unclosed@example.com', 'a\ud800b@example.com',
    ];
    for (const s of good) expect([s, email(s)]).toEqual([s, true]);
    for (const s of bad) expect([s, email(s)]).toEqual([s, false]);
  });

  it('checks long crafted texts to the end, each in one pass', () => {
    const crafted: [string, string][] = [
      ['iri', `http://${'ü:@a.'.repeat(50_000)} `],
      ['iri', `http://[${'1:'.repeat(50_000)}]`],
      ['iri-reference', `${'ü/%a'.repeat(50_000)}%`],
      ['iri-reference', `//${'ü@'.repeat(50_000)}/\\`],
      ['idn-hostname', `${'ü'.repeat(200_000)}.example`],
      ['idn-hostname', `${'ü.'.repeat(100_000)}-`],
      ['idn-email', `"${'\\"'.repeat(100_000)}@example.com`],
      ['idn-email', `${'ü.'.repeat(100_000)}@example.com`],
      ['idn-email', `a@[${'1.'.repeat(100_000)}]`],
    ];
    for (const [format, text] of crafted) expect([format, text.slice(0, 12), check(format)(text)]).toEqual([format, text.slice(0, 12), false]);
    expect(check('iri')(`https://bücher.example/${'ü'.repeat(200_000)}`)).toBe(true);
    expect(check('idn-email')(`${'ü'.repeat(200_000)}@bücher.example`)).toBe(true);
  });
});
