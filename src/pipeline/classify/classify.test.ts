// Ranking and the decision on real documents' fingerprints: two invoices of one sender against
// others, keywords as phrases and patterns, the shape measures that tell kinds apart, the margin,
// and draft schemas from a real invoice.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runEntities } from '../extract/index.js';
import { runCanonical, toCanonicalJson } from '../index.js';
import { type Candidate, type TemplateProfile, decide, fingerprintOf, likeness, rankTemplates } from './index.js';
import { typicality } from './typicality.js';
import { commonSchema, proposeDraft, snakeCase } from './draft-schema.js';

const DATA = new URL('../../../../shared/data/', import.meta.url);
// A bare name is an invoice2data invoice; a path is relative to ../shared/data.
const file = (name: string) => new URL(name.includes('/') ? name : `invoice2data/compare/${name}`, DATA);

async function doc(name: string) {
  const canonical = toCanonicalJson(await runCanonical(readFileSync(file(name))));
  const entities = runEntities(canonical, { generic_entities_enabled: true });
  return { canonical, entities, fp: fingerprintOf(canonical, entities, 'pdf') };
}

const profile = (name: string, exemplars: TemplateProfile['exemplars'], keywords: string[] = []): TemplateProfile => ({ template_id: name, version: 1, name, keywords, fields: [], exemplars });

describe('classification', () => {
  it('two invoices of one sender are more alike than invoices of different senders', async () => {
    const [c1, c2, azure] = await Promise.all([doc('coolblue1.pdf'), doc('coolblue2.pdf'), doc('AzureInterior.pdf')]);
    const same = likeness(c1.fp, c2.fp);
    expect(same.score).toBeGreaterThan(likeness(c1.fp, azure.fp).score);
    expect(same.identifiers.length).toBeGreaterThan(0);
    const ranked = rankTemplates(c2.fp, c2.canonical.text, [profile('azure', [{ job_id: 'a', fingerprint: azure.fp }]), profile('coolblue', [{ job_id: 'c', fingerprint: c1.fp }])]);
    expect(ranked[0]!.name).toBe('coolblue');
    expect(decide(ranked)).toMatchObject({ matched: true, template_id: 'coolblue' });
  });

  it('declared keywords match as phrases or as patterns; a template without evidence is not a match', async () => {
    const azure = await doc('AzureInterior.pdf');
    const ranked = rankTemplates(azure.fp, azure.canonical.text, [profile('azure', [], ['Azure Interior']), profile('pattern', [], ['Azure\\s+Int[a-z]+']), profile('none', [], ['Nothing Like This'])]);
    expect(ranked.slice(0, 2).map((c) => c.score)).toEqual([0.9, 0.9]);
    expect(ranked[2]).toMatchObject({ name: 'none', score: 0 });
    expect(decide([ranked[2]!]).matched).toBe(false);
  });

  it('a keyword phrase matches when the text layer prints its words apart', async () => {
    // The PDF prints the sender's e-mail between the two words of its name.
    const sammy = await doc('SammyMaystoneLinesTest.pdf');
    expect(sammy.canonical.text).not.toMatch(/Sammy Maystone/);
    const ranked = rankTemplates(sammy.fp, sammy.canonical.text, [profile('sammy', [], ['Sammy Maystone']), profile('far', [], ['Sammy Balance'])]);
    expect(ranked[0]).toMatchObject({ name: 'sammy', score: 0.9 });
    expect(ranked[1]).toMatchObject({ name: 'far', score: 0 });
  });

  it('webmail domains are not identifiers; a company domain is; the shape says how much is table and numbers', async () => {
    const [table, invoice] = await Promise.all([doc('tables-camelot/files/split_text_lattice.pdf'), doc('AzureInterior.pdf')]);
    expect(table.canonical.text).toMatch(/@gmail\.com/);
    expect(table.fp.identifiers).toContain('domain:mukandgroup.in');
    expect(table.fp.identifiers.filter((i) => /gmail|yahoo|hotmail/.test(i))).toEqual([]);
    expect(table.fp.shape.table_word_share).toBeGreaterThan(0.9);
    expect(table.fp.shape.numeric_columns_per_table).toBeGreaterThanOrEqual(1);
    expect(invoice.fp.shape.table_word_share).toBeLessThan(table.fp.shape.table_word_share!);
    expect(invoice.fp.shape.amounts_per_page).toBeGreaterThan(5);
  });

  it('a table report is more typical of table reports than of invoices; under three exemplars there is no typicality', async () => {
    const tables = await Promise.all(['health', 'twotables_2', 'anticlockwise_table_2', 'mexican_towns'].map((n) => doc(`tables-camelot/files/${n}.pdf`)));
    const invoices = await Promise.all(['coolblue1.pdf', 'AzureInterior.pdf', 'oyo.pdf', 'NetpresseInvoice.pdf'].map((n) => doc(n)));
    const [probe, ...reports] = tables.map((t) => t.fp);
    const asTable = typicality(probe!, reports)!;
    const asInvoice = typicality(probe!, invoices.slice(1).map((i) => i.fp))!;
    expect(asTable).toBeGreaterThan(2 * asInvoice);
    expect(typicality(invoices[0]!.fp, invoices.slice(1).map((i) => i.fp))!).toBeGreaterThan(typicality(invoices[0]!.fp, reports)!);
    expect(typicality(probe!, reports.slice(0, 2))).toBeNull();
  });

  it('running sentences and printed identifiers tell a paper, a table report and an invoice apart', async () => {
    const [paper, table, invoice] = await Promise.all([doc('docling/pdf/sources/2305.03393v1-pg9.pdf'), doc('tables-camelot/files/health.pdf'), doc('coolblue1.pdf')]);
    expect(paper.fp.shape.prose_share).toBeGreaterThan(0.5);
    expect(table.fp.shape.prose_share).toBeLessThan(0.1);
    expect(invoice.fp.shape.identifiers_per_page).toBeGreaterThanOrEqual(2);
    expect(table.fp.shape.identifiers_per_page).toBe(0);
    // Against table reports, the paper's running sentences count against it; a table report's do not.
    const reports = await Promise.all(['twotables_2', 'anticlockwise_table_2', 'mexican_towns', 'column_span_2'].map((n) => doc(`tables-camelot/files/${n}.pdf`)));
    const asReport = (fp: typeof paper.fp) => typicality(fp, reports.map((r) => r.fp))!;
    // A fingerprint stored before the measure existed lacks it, and the comparison skips it.
    const withoutProse = (fp: typeof paper.fp) => {
      const { prose_share: _, ...shape } = fp.shape;
      return { ...fp, shape };
    };
    expect(asReport(paper.fp)).toBeLessThan(asReport(withoutProse(paper.fp)));
    expect(asReport(table.fp)).toBeGreaterThanOrEqual(asReport(withoutProse(table.fp)));
    expect(asReport(paper.fp)).toBeLessThan(asReport(table.fp));
  });

  it('two leaders within the margin are ambiguous, and the reason names them', () => {
    const c = (name: string, score: number): Candidate => ({ template_id: name, version: 1, name, score, evidence: {} as Candidate['evidence'] });
    const d = decide([c('a', 0.61), c('b', 0.6)]);
    expect(d).toMatchObject({ matched: false, template_id: null, method: 'embedded', reason_code: 'ambiguous' });
    expect(d.reason).toMatch(/a \(0.61\) and b \(0.6\)/);
    // A miss says who decided (the embedded ranking) and, apart, why nothing matched.
    expect(decide([c('a', 0.2)])).toMatchObject({ matched: false, template_id: null, version: null, method: 'embedded', reason_code: 'below_threshold' });
    expect(decide([])).toMatchObject({ matched: false, template_id: null, method: 'embedded', reason_code: 'no_templates' });
    const winner = decide([c('a', 0.7), c('b', 0.2)]);
    expect(winner).toMatchObject({ matched: true, template_id: 'a', method: 'embedded' });
    expect(winner).not.toHaveProperty('reason_code');
  });

  it('a draft takes no printed value for a label: an amount read as a key or a table header is no field', async () => {
    const coolblue = toCanonicalJson(await runCanonical(readFileSync(file('coolblue1.pdf'))));
    const keys = coolblue.pages.flatMap((p) => [...p.key_values.map((kv) => kv.key), ...p.tables.flatMap((t) => t.cells.filter((c) => c.row === 0).map((c) => c.text))]);
    // The document does print amounts where a label would stand (a total row read as a key or a header).
    expect(keys.some((k) => !/\p{L}{2}/u.test(k))).toBe(true);
    const draft = proposeDraft(coolblue, runEntities(coolblue, { generic_entities_enabled: true }), null);
    const aliases = (schema: Record<string, unknown>): string[] =>
      Object.values((schema.properties ?? {}) as Record<string, Record<string, unknown>>).flatMap((f) => [...((f['x-aliases'] as string[]) ?? []), ...(f.items ? aliases(f.items as Record<string, unknown>) : [])]);
    const printed = aliases(draft.json_schema);
    expect(printed.length).toBeGreaterThan(5);
    for (const alias of printed) expect(alias, alias).toMatch(/\p{L}{2}/u);
    expect(Object.keys(draft.json_schema.properties as object).filter((n) => /^field_\d/.test(n))).toEqual([]);
  });

  it('a draft has snake_case fields from key-values, tables as items, and identifiers', async () => {
    const orlen = toCanonicalJson(await runCanonical(readFileSync(file('Orlen.txt'))));
    const draft = proposeDraft(orlen, runEntities(orlen, { generic_entities_enabled: true }), 'Faktura nr: F 1234K20/1234/12');
    const props = draft.json_schema.properties as Record<string, { type: string; 'x-aliases'?: string[] }>;
    expect(props.faktura_nr).toMatchObject({ type: 'string', 'x-aliases': ['Faktura nr'] });
    expect(props.data_wystawienia).toMatchObject({ type: 'string', format: 'date' });
    expect(props.items?.type).toBe('array');
    expect(draft.name).toMatch(/^[a-z0-9][a-z0-9_-]*$/);
    expect(snakeCase('Należność ogółem:')).toBe('naleznosc_ogolem');
    expect(snakeCase('2nd line')).toBe('field_2nd_line');
    const common = commonSchema([{ properties: { a: {}, b: {} } }, { properties: { a: {} } }, { properties: { a: {}, c: {} } }]);
    expect(common.kept).toEqual(['a']);
  });
});
