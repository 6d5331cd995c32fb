import { describe, expect, it } from 'vitest';
import { parseXml } from './xml.js';

describe('the DOCTYPE check of an Office part', () => {
  it('refuses a DOCTYPE after the declaration and comments', () => {
    expect(() => parseXml('<?xml version="1.0"?>\n<!-- a -->\n<!-- b -- c -->\n<!DOCTYPE x [<!ENTITY e "y">]><x/>')).toThrow(/declares a DOCTYPE/);
  });

  it('reads comments that almost close, many of them, in time linear in their length', () => {
    // Each "<!----><!-" doubled the ways a lazy comment body could end: 11 took 4 s before a
    // comment ended at its first "-->", 13 over a minute.
    const part = '<!-' + '---><!--><!----><!-'.repeat(13);
    expect(() => parseXml(part)).toThrow(/not well-formed XML/);
  });
});
