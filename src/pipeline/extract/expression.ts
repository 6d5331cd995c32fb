// The `arithmetic` rule's small language: `subtotal + tax = total`, `qty * price <= amount + 0.5`.
// Operands are field paths or numbers; + - * / and parentheses; one comparison (= == < <= > >=).

type Node = { num: number } | { path: string } | { op: '+' | '-' | '*' | '/'; left: Node; right: Node } | { neg: Node };

export interface Equation {
  left: Node;
  right: Node;
  compare: '=' | '<' | '<=' | '>' | '>=';
}

const TOKEN = /\s*(?:(\d+(?:\.\d+)?)|([A-Za-z_$][\w$-]*(?:\[\d*\])?(?:\.[A-Za-z_$][\w$-]*(?:\[\d*\])?)*)|(<=|>=|==|=|<|>)|([-+*/()]))/y;

function tokenize(src: string): string[] | string {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  let pos = 0;
  while (pos < src.length) {
    if (/^\s*$/.test(src.slice(pos))) break;
    TOKEN.lastIndex = pos;
    const m = TOKEN.exec(src);
    if (!m) return `Unexpected character at position ${pos + 1}: '${src.slice(pos).trim()[0]}'`;
    out.push(m[1] ?? m[2] ?? m[3] ?? m[4]!);
    pos = TOKEN.lastIndex;
  }
  return out;
}

export function parseEquation(src: string): Equation | string {
  const tokens = tokenize(src);
  if (typeof tokens === 'string') return tokens;
  let i = 0;
  const peek = () => tokens[i];
  const fail = (what: string) => `Expected ${what} ${i < tokens.length ? `at '${tokens[i]}'` : 'at the end'}`;
  function primary(): Node | string {
    const t = tokens[i++];
    if (t === undefined) return fail('a field or a number');
    if (t === '(') {
      const inner = sum();
      if (typeof inner === 'string') return inner;
      if (tokens[i++] !== ')') return fail("')'");
      return inner;
    }
    if (t === '-') {
      const inner = primary();
      return typeof inner === 'string' ? inner : { neg: inner };
    }
    if (/^\d/.test(t)) return { num: Number(t) };
    if (/^[A-Za-z_$]/.test(t)) return { path: t };
    i--;
    return fail('a field or a number');
  }
  function product(): Node | string {
    let left = primary();
    while (typeof left !== 'string' && (peek() === '*' || peek() === '/')) {
      const op = tokens[i++] as '*' | '/';
      const right = primary();
      if (typeof right === 'string') return right;
      left = { op, left, right };
    }
    return left;
  }
  function sum(): Node | string {
    let left = product();
    while (typeof left !== 'string' && (peek() === '+' || peek() === '-')) {
      const op = tokens[i++] as '+' | '-';
      const right = product();
      if (typeof right === 'string') return right;
      left = { op, left, right };
    }
    return left;
  }
  const left = sum();
  if (typeof left === 'string') return left;
  const cmp = tokens[i++];
  if (!cmp || !['=', '==', '<', '<=', '>', '>='].includes(cmp)) return i - 1 < tokens.length ? fail('a comparison (=, <, <=, >, >=)') : 'The expression needs a comparison (=, <, <=, >, >=)';
  const right = sum();
  if (typeof right === 'string') return right;
  if (i < tokens.length) return fail('the end of the expression');
  return { left, right, compare: cmp === '==' ? '=' : (cmp as Equation['compare']) };
}

/** The parse error of an expression, or null when it parses. */
export function expressionError(src: string): string | null {
  const parsed = parseEquation(src);
  return typeof parsed === 'string' ? parsed : null;
}

/** Evaluates one side; null when an operand is missing or not a number. */
export function evaluate(node: Node, lookup: (path: string) => number | null): number | null {
  if ('num' in node) return node.num;
  if ('path' in node) return lookup(node.path);
  if ('neg' in node) {
    const v = evaluate(node.neg, lookup);
    return v === null ? null : -v;
  }
  const a = evaluate(node.left, lookup);
  const b = evaluate(node.right, lookup);
  if (a === null || b === null) return null;
  switch (node.op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    default:
      return b === 0 ? null : a / b;
  }
}
