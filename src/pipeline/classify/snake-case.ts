// Field and template names from printed text.

const LETTERS: Record<string, string> = { ł: 'l', Ł: 'L', ø: 'o', Ø: 'O', ß: 'ss', æ: 'ae', Æ: 'AE', œ: 'oe', Œ: 'OE', đ: 'd', Đ: 'D' };

/** "Invoice No.:" → "invoice_no"; a name that would start with a digit gets a `field_` prefix. */
export function snakeCase(text: string): string {
  const words = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    // Letters without a decomposition: "Zapłacono" → "zaplacono", not "zap_acono".
    .replace(/[łŁøØßæÆœŒđĐ]/g, (c) => LETTERS[c] ?? c)
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .match(/[a-z0-9]+/g);
  const name = (words ?? []).join('_').slice(0, 60).replace(/_+$/, '');
  if (!name) return '';
  return /^[a-z]/.test(name) ? name : `field_${name}`;
}
