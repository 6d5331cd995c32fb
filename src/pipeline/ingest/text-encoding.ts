// Which bytes are text, and how they decode: the sniffer and the text reader ask the same question.
// UTF-8 first; bytes that are not UTF-8 but read as Windows-1252 without NULs and with few control
// characters are legacy Western text (Latin-1 is a subset: a lone "é" byte after 84 KB of ASCII,
// a file saved by Notepad in "ANSI"), which a binary file almost never passes.

export type TextEncoding = 'utf-8' | 'windows-1252';

/** The text and its encoding, or null when the bytes are not text in either. */
export function decodeText(b: Uint8Array): { text: string; encoding: TextEncoding } | null {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(b);
    return looksLikeText(text) ? { text, encoding: 'utf-8' } : null;
  } catch {
    // Not UTF-8: perhaps Windows-1252, which decodes any byte.
  }
  text = windows1252(b);
  return looksLikeText(text) ? { text, encoding: 'windows-1252' } : null;
}

/**
 * 0x80-0x9F of Windows-1252 (WHATWG encoding index); the five bytes it leaves undefined stay C1
 * controls. Node's TextDecoder without full ICU decodes "windows-1252" as Latin-1, so it is done here.
 */
const HIGH = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

export function windows1252(b: Uint8Array): string {
  const latin1 = Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');
  return latin1.replace(/[\x80-\x9f]/g, (c) => HIGH[c.charCodeAt(0) - 0x80]!);
}

/**
 * No NUL and at most 1 % control characters: tab, line breaks and form feed (a page break) are
 * allowed; the bytes Windows-1252 leaves undefined (they decode to C1 controls) count against.
 */
function looksLikeText(text: string): boolean {
  let control = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) return false;
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0x0c) || (c >= 0x80 && c < 0xa0)) control++;
  }
  return control <= text.length / 100;
}
