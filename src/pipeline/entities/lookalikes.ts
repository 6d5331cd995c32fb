// OCR confuses glyphs that look alike: O and 0, l and 1 ("L0T", "Ja1an", "8110O"). In text read
// by OCR, a word of letters with a 0 or 1 between two letters reads as letters, and a number with
// an O or l among at least three digits reads as digits. Other words (codes such as "SS21", "U3",
// "1A", "PT244") are left as printed: their mix of letters and digits may be meant.

const LETTER_WORD = /^(?=(?:.*\p{L}){2})[\p{L}01]+$/u;
const DIGIT_WORD = /^(?=(?:.*\d){3})[\dOoIl]{4,}$/;

function asLetters(word: string): string {
  return word.replace(/(?<=\p{L})[01](?=\p{L})/gu, (d, at: number) => {
    const lower = /\p{Ll}/u.test(word[at - 1]!) && /\p{Ll}/u.test(word[at + 1]!);
    return d === '0' ? (lower ? 'o' : 'O') : lower ? 'l' : 'I';
  });
}

const asDigits = (word: string) => word.replace(/[Oo]/g, '0').replace(/[Il]/g, '1');

/** `text` (read by OCR) with the look-alike glyphs of its words put right. */
export function repairLookalikes(text: string): string {
  return text.replace(/[\p{L}\d]+/gu, (word) => (LETTER_WORD.test(word) ? asLetters(word) : DIGIT_WORD.test(word) ? asDigits(word) : word));
}
