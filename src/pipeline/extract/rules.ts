// Runs a template's validation rules over extracted data. Each broken rule yields one entry per
// field it concerns: {rule, field, severity, message}. A rule whose fields are missing is not
// broken (that is what `required` is for), except `required` and `required_if` themselves.
import { compileLinear } from '../../lib/linear-regex.js';
import { isValidIban, luhnValid } from '../entities/checksums.js';
import { parseDate } from '../entities/dates.js';
import { parseNumber } from '../entities/numbers.js';
import { isValidVat } from '../entities/tax-ids.js';
import { type Equation, evaluate, parseEquation } from './expression.js';
import { isEmpty, valuesAt } from './paths.js';
import { readFormattedDate } from './postprocess.js';
import type { Rule, Severity } from './rule-kinds.js';

export interface ValidationEntry {
  rule: string;
  field: string;
  severity: Severity;
  message: string;
}

export interface RuleOutcome {
  entries: ValidationEntry[];
  /** Rule ids broken with on_fail "reject". */
  rejected: string[];
}

export function ruleId(rule: Rule): string {
  if (rule.name) return rule.name;
  const fields = rule.field ? [rule.field] : (rule.fields ?? []);
  if (rule.kind === 'arithmetic') return `arithmetic:${String(rule.params?.expression ?? '').replace(/\s+/g, '')}`;
  return `${rule.kind}:${fields.join(',')}`;
}

function asNumber(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string') return parseNumber(v.replace(/[^\d.,\-\s']/g, ''));
  return null;
}

/** The date format post-processing wrote a path's date in (post_processing.date_format), if any. */
export type DateFormatOf = (path: string) => string | undefined;

function asDate(v: unknown, format?: string): string | null {
  if (typeof v !== 'string') return null;
  // A template may format dates (post_processing.date_format); read them back in that format
  // ("03/05/2024" in MM/DD/YYYY is 5 March, not 3 May).
  const formatted = format ? readFormattedDate(v, format) : null;
  if (formatted) return formatted;
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(v);
  if (!m) return v.trim().length <= 40 ? parseDate(v) : null;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCMonth() === Number(m[2]) - 1 ? `${m[1]}-${m[2]}-${m[3]}` : null;
}

function same(a: unknown, b: unknown, caseInsensitive: boolean, tolerance: number): boolean {
  const na = asNumber(a);
  const nb = asNumber(b);
  if (typeof a === 'number' || typeof b === 'number') return na !== null && nb !== null && Math.abs(na - nb) <= tolerance;
  const sa = String(a).trim();
  const sb = String(b).trim();
  return caseInsensitive ? sa.toLowerCase() === sb.toLowerCase() : sa === sb;
}

const show = (v: unknown) => (typeof v === 'string' ? `'${v}'` : JSON.stringify(v));

function broken(rule: Rule, field: string, message: string): ValidationEntry {
  return { rule: ruleId(rule), field, severity: rule.severity ?? 'error', message: rule.message ?? message };
}

function check(rule: Rule, data: Record<string, unknown>, today: string, dateFormatOf: DateFormatOf): ValidationEntry[] {
  const p = rule.params ?? {};
  const out: ValidationEntry[] = [];
  const targets = rule.field ? valuesAt(data, rule.field) : [];
  const present = targets.filter((t) => !isEmpty(t.value));
  switch (rule.kind) {
    case 'required': {
      for (const path of rule.field ? [rule.field] : (rule.fields ?? [])) {
        const at = valuesAt(data, path);
        if (!at.length) out.push(broken(rule, path, `${path} is required but was not found.`));
        for (const t of at) if (isEmpty(t.value)) out.push(broken(rule, t.path, `${t.path} is required but was not found.`));
      }
      return out;
    }
    case 'pattern': {
      let re: ReturnType<typeof compileLinear>;
      try {
        re = compileLinear(String(p.pattern), typeof p.flags === 'string' ? p.flags : '');
      } catch (err) {
        // A template saved before patterns ran in the linear-time engine: report, never fail the job.
        return [broken(rule, rule.field ?? '', `The pattern ${String(p.pattern)} cannot run in the linear-time engine (${(err as Error).message}); edit the rule.`)];
      }
      for (const t of present) if (!re.test(String(t.value))) out.push(broken(rule, t.path, `${t.path} ${show(t.value)} does not match ${String(p.pattern)}.`));
      return out;
    }
    case 'enum': {
      const values = (p.values as unknown[]) ?? [];
      const ci = p.case_insensitive === true;
      for (const t of present) if (!values.some((v) => same(t.value, v, ci, 0))) out.push(broken(rule, t.path, `${t.path} ${show(t.value)} is not one of ${values.map(show).join(', ')}.`));
      return out;
    }
    case 'range': {
      for (const t of present) {
        const n = asNumber(t.value);
        if (n === null) out.push(broken(rule, t.path, `${t.path} ${show(t.value)} is not a number.`));
        else if (typeof p.min === 'number' && n < p.min) out.push(broken(rule, t.path, `${t.path} ${n} is below ${p.min}.`));
        else if (typeof p.max === 'number' && n > p.max) out.push(broken(rule, t.path, `${t.path} ${n} is above ${p.max}.`));
      }
      return out;
    }
    case 'length': {
      for (const t of targets) {
        if (t.value === undefined || t.value === null) continue;
        const n = Array.isArray(t.value) ? t.value.length : String(t.value).length;
        if (typeof p.min === 'number' && n < p.min) out.push(broken(rule, t.path, `${t.path} has length ${n}, less than ${p.min}.`));
        else if (typeof p.max === 'number' && n > p.max) out.push(broken(rule, t.path, `${t.path} has length ${n}, more than ${p.max}.`));
      }
      return out;
    }
    case 'date': {
      for (const t of present) {
        const d = asDate(t.value, dateFormatOf(t.path));
        if (!d) out.push(broken(rule, t.path, `${t.path} ${show(t.value)} is not a date (YYYY-MM-DD).`));
        else if (typeof p.min === 'string' && d < p.min) out.push(broken(rule, t.path, `${t.path} ${d} is before ${p.min}.`));
        else if (typeof p.max === 'string' && d > p.max) out.push(broken(rule, t.path, `${t.path} ${d} is after ${p.max}.`));
        else if (p.not_in_future === true && d > today) out.push(broken(rule, t.path, `${t.path} ${d} is in the future.`));
      }
      return out;
    }
    case 'date_order': {
      const fields = rule.fields ?? [];
      for (let i = 1; i < fields.length; i++) {
        const at = (path: string) => valuesAt(data, path)[0];
        const [first, second] = [at(fields[i - 1]!), at(fields[i]!)];
        const a = first ? asDate(first.value, dateFormatOf(first.path)) : null;
        const b = second ? asDate(second.value, dateFormatOf(second.path)) : null;
        if (!a || !b) continue;
        if (p.strict === true ? !(a < b) : a > b) out.push(broken(rule, fields[i]!, `${fields[i]} ${b} comes before ${fields[i - 1]} ${a}.`));
      }
      return out;
    }
    case 'sum': {
      const total = asNumber(present[0]?.value);
      const items = valuesAt(data, String(p.items)).map((t) => asNumber(t.value)).filter((n): n is number => n !== null);
      if (total === null || !items.length) return out;
      const sum = items.reduce((s, n) => s + n, 0);
      const tolerance = typeof p.tolerance === 'number' ? p.tolerance : 0.01;
      if (Math.abs(sum - total) > tolerance + 1e-9) out.push(broken(rule, rule.field!, `${String(p.items)} add up to ${round(sum)}, not ${rule.field} ${total}.`));
      return out;
    }
    case 'arithmetic': {
      const eq = parseEquation(String(p.expression));
      if (typeof eq === 'string') return out;
      const result = compare(eq, data, typeof p.tolerance === 'number' ? p.tolerance : 0.01);
      if (result && !result.ok) out.push(broken(rule, result.field, `${String(p.expression)} does not hold: ${round(result.left)} vs ${round(result.right)}.`));
      return out;
    }
    case 'checksum': {
      for (const t of present) {
        const v = String(t.value);
        const ok = p.algorithm === 'luhn' ? luhnValid(v) : p.algorithm === 'iban' ? isValidIban(v) : isValidVat(v);
        if (!ok) out.push(broken(rule, t.path, `${t.path} ${show(t.value)} fails the ${String(p.algorithm)} check.`));
      }
      return out;
    }
    case 'equals': {
      const tolerance = typeof p.tolerance === 'number' ? p.tolerance : 0.01;
      const ci = p.case_insensitive === true;
      if (rule.field) {
        for (const t of present) if (!same(t.value, p.value, ci, tolerance)) out.push(broken(rule, t.path, `${t.path} ${show(t.value)} is not ${show(p.value)}.`));
        return out;
      }
      const fields = rule.fields ?? [];
      const values = fields.map((f) => valuesAt(data, f)[0]?.value).filter((v) => !isEmpty(v));
      if (values.length < 2) return out;
      for (let i = 1; i < fields.length; i++) {
        const a = valuesAt(data, fields[0]!)[0]?.value;
        const b = valuesAt(data, fields[i]!)[0]?.value;
        if (!isEmpty(a) && !isEmpty(b) && !same(a, b, ci, tolerance)) out.push(broken(rule, fields[i]!, `${fields[i]} ${show(b)} differs from ${fields[0]} ${show(a)}.`));
      }
      return out;
    }
    case 'required_if': {
      const when = valuesAt(data, String(p.when))[0]?.value;
      let applies = !isEmpty(when);
      if (applies && p.equals !== undefined) applies = same(when, p.equals, false, 0);
      if (applies && Array.isArray(p.in)) applies = p.in.some((v) => same(when, v, false, 0));
      if (!applies) return out;
      if (!targets.length) out.push(broken(rule, rule.field!, `${rule.field} is required when ${String(p.when)} is ${show(when)}.`));
      for (const t of targets) if (isEmpty(t.value)) out.push(broken(rule, t.path, `${t.path} is required when ${String(p.when)} is ${show(when)}.`));
      return out;
    }
    default:
      return out;
  }
}

const round = (n: number) => Math.round(n * 10000) / 10000;

function compare(eq: Equation, data: Record<string, unknown>, tolerance: number): { ok: boolean; left: number; right: number; field: string } | null {
  const lookup = (path: string) => {
    const values = valuesAt(data, path);
    if (path.includes('[]')) {
      const nums = values.map((v) => asNumber(v.value)).filter((n): n is number => n !== null);
      return nums.length ? nums.reduce((s, n) => s + n, 0) : null;
    }
    return asNumber(values[0]?.value);
  };
  const left = evaluate(eq.left, lookup);
  const right = evaluate(eq.right, lookup);
  if (left === null || right === null) return null;
  const diff = left - right;
  const ok =
    eq.compare === '=' ? Math.abs(diff) <= tolerance + 1e-9 : eq.compare === '<' ? diff < 0 : eq.compare === '<=' ? diff <= tolerance : eq.compare === '>' ? diff > 0 : diff >= -tolerance;
  const firstPath = (n: Equation['right']): string | null => ('path' in n ? n.path : 'op' in n ? firstPath(n.left) ?? firstPath(n.right) : 'neg' in n ? firstPath(n.neg) : null);
  return { ok, left, right, field: firstPath(eq.right) ?? firstPath(eq.left) ?? '' };
}

export function runRules(rules: Rule[], data: Record<string, unknown>, now = new Date(), dateFormatOf: DateFormatOf = () => undefined): RuleOutcome {
  const today = now.toISOString().slice(0, 10);
  const entries: ValidationEntry[] = [];
  const rejected: string[] = [];
  for (const rule of rules) {
    const found = check(rule, data, today, dateFormatOf);
    entries.push(...found);
    if (found.length && rule.on_fail === 'reject' && (rule.severity ?? 'error') === 'error') rejected.push(ruleId(rule));
  }
  return { entries, rejected };
}
