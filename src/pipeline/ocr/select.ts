// Which engine's reading a page keeps (tenant policy `ocr_selection_mode`):
// - `tesseract_priority` / `paddle_priority`: run the priority engine; consult the other only when
//   the page is doubtful (mean confidence below `paddle_risk_policy.min_confidence`, or a risk the
//   policy names: rotated text, low contrast, tiny glyphs). The other reading wins only when its
//   mean confidence is higher by more than `ocr_priority_margin`.
// - `confidence_based`: run both and keep, per line region, the more confident reading (the
//   page's more confident reader keeps a region unless the other is ahead by the margin).
// Works on engine-input pixels; the caller maps the result into page points.
import type { PixelEngine } from './engine.js';
import { charWeightedConfidence, overlap1d } from './geometry.js';
import type { OcrSelectionMode, PaddleRiskPolicy } from './policy.js';
import type { Prepared } from './preprocess.js';
import type { OcrEngineName, OcrLine, PixelPage } from './types.js';

export interface OcrDecision {
  mode: OcrSelectionMode;
  engine_used: OcrEngineName | 'mixed' | 'remote';
  /** Mean (character-weighted) confidence of each engine's whole-page reading; null when it did not run. */
  confidences: { tesseract: number | null; paddle: number | null; remote?: number | null };
  reason: string;
  /** Risk signals found on the page (named by paddle_risk_policy). */
  risks: string[];
  /** confidence_based: how many line regions each engine won. */
  regions?: { tesseract: number; paddle: number };
}

export interface SelectionInput {
  prepared: Prepared;
  engines: { tesseract: PixelEngine; paddle: PixelEngine };
  mode: OcrSelectionMode;
  margin: number;
  risk: PaddleRiskPolicy;
  languages: string[];
  dpi?: number;
}

export interface Selected {
  page: PixelPage;
  decision: OcrDecision;
  /** Each engine's whole-page reading, for the engines that ran (judge mode reuses them). */
  readings: Partial<Record<OcrEngineName, PixelPage>>;
}

/**
 * A line only one engine read is kept when that engine is the page's more confident reader, or
 * when the line itself is at least this confident: the weaker reader's extra lines are mostly
 * speckle read as characters (measured on faint receipts, where tesseract adds dozens).
 */
const SINGLE_READING_FLOOR = 0.6;

export function riskSignals(prepared: Prepared, risk: PaddleRiskPolicy): string[] {
  const out: string[] = [];
  if (risk.rotated_text && (prepared.quarters !== 0 || Math.abs(prepared.skew) >= risk.rotated_skew_degrees)) out.push('rotated_text');
  if (risk.low_contrast && prepared.signals.contrast < risk.low_contrast_spread) out.push('low_contrast');
  const lh = prepared.signals.lineHeightPx;
  if (risk.tiny_glyphs && lh > 0 && lh < risk.tiny_line_height_px) out.push('tiny_glyphs');
  return out;
}

export async function selectOcr(input: SelectionInput): Promise<Selected> {
  const risks = riskSignals(input.prepared, input.risk);
  const read = (name: OcrEngineName) =>
    input.engines[name].read(name === 'tesseract' ? input.prepared.tesseract : input.prepared.paddle, { languages: input.languages, dpi: input.dpi });
  const conf = (p: PixelPage) => charWeightedConfidence(p.lines.flatMap((l) => l.words));

  if (input.mode === 'confidence_based') {
    const [t, p] = [await read('tesseract'), await read('paddle')];
    const merged = mergeByRegion(t, p, input.margin);
    const ct = conf(t);
    const cp = conf(p);
    const engine_used = merged.won.tesseract === 0 ? 'paddle' : merged.won.paddle === 0 ? 'tesseract' : 'mixed';
    return {
      page: merged.page,
      readings: { tesseract: t, paddle: p },
      decision: {
        mode: input.mode,
        engine_used: merged.page.lines.length === 0 ? (cp >= ct ? 'paddle' : 'tesseract') : engine_used,
        confidences: { tesseract: round(ct), paddle: round(cp) },
        reason: `both engines ran; per line region the more confident reading was kept (tesseract ${merged.won.tesseract}, paddle ${merged.won.paddle})`,
        risks,
        regions: merged.won,
      },
    };
  }

  const first: OcrEngineName = input.mode === 'tesseract_priority' ? 'tesseract' : 'paddle';
  const other: OcrEngineName = first === 'tesseract' ? 'paddle' : 'tesseract';
  const a = await read(first);
  const ca = conf(a);
  const lowConfidence = ca < input.risk.min_confidence;
  const confidences = { tesseract: null as number | null, paddle: null as number | null };
  confidences[first] = round(ca);
  if (!lowConfidence && risks.length === 0) {
    return {
      page: a,
      readings: { [first]: a },
      decision: { mode: input.mode, engine_used: first, confidences, reason: `${first} confident (${fmt(ca)} ≥ ${fmt(input.risk.min_confidence)}) and no risk signals`, risks },
    };
  }
  const why = [lowConfidence ? `mean confidence ${fmt(ca)} < ${fmt(input.risk.min_confidence)}` : '', ...risks].filter(Boolean).join(', ');
  const b = await read(other);
  const cb = conf(b);
  confidences[other] = round(cb);
  if (cb > ca + input.margin) {
    return {
      page: b,
      readings: { [first]: a, [other]: b },
      decision: { mode: input.mode, engine_used: other, confidences, reason: `${first} doubtful (${why}); ${other} more confident by more than ${fmt(input.margin)} (${fmt(cb)} vs ${fmt(ca)})`, risks },
    };
  }
  return {
    page: a,
    readings: { [first]: a, [other]: b },
    decision: { mode: input.mode, engine_used: first, confidences, reason: `${first} doubtful (${why}); ${other} not more confident by more than ${fmt(input.margin)} (${fmt(cb)} vs ${fmt(ca)})`, risks },
  };
}

/**
 * Groups the two readings' lines into regions (lines that share most of their height and overlap
 * horizontally, transitively) and keeps, per region, the engine whose words are more confident.
 * The page's more confident reader (character-weighted mean) keeps a region unless the other
 * reader's words there are more confident by more than `margin` (ocr_priority_margin): region
 * scores are noisy, and a tie should not hand a line to the weaker reader.
 * Lines only one engine read: see SINGLE_READING_FLOOR.
 */
export function mergeByRegion(t: PixelPage, p: PixelPage, margin = 0): { page: PixelPage; won: { tesseract: number; paddle: number } } {
  const all: { line: OcrLine; engine: OcrEngineName }[] = [
    ...t.lines.map((line) => ({ line, engine: 'tesseract' as const })),
    ...p.lines.map((line) => ({ line, engine: 'paddle' as const })),
  ];
  const parent = all.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  for (let i = 0; i < all.length; i++) {
    for (let j = i + 1; j < all.length; j++) {
      if (all[i].engine === all[j].engine) continue;
      if (sameRegion(all[i].line, all[j].line)) parent[find(i)] = find(j);
    }
  }
  const regions = new Map<number, { tesseract: OcrLine[]; paddle: OcrLine[] }>();
  all.forEach((it, i) => {
    const r = find(i);
    const group = regions.get(r) ?? { tesseract: [], paddle: [] };
    group[it.engine].push(it.line);
    regions.set(r, group);
  });
  const lines: OcrLine[] = [];
  const won = { tesseract: 0, paddle: 0 };
  const pageConf = (pg: PixelPage) => charWeightedConfidence(pg.lines.flatMap((l) => l.words));
  const leader: OcrEngineName = pageConf(p) >= pageConf(t) ? 'paddle' : 'tesseract';
  for (const g of regions.values()) {
    const ct = g.tesseract.length ? charWeightedConfidence(g.tesseract.flatMap((l) => l.words)) : -1;
    const cp = g.paddle.length ? charWeightedConfidence(g.paddle.flatMap((l) => l.words)) : -1;
    // The page's more confident reader keeps a region unless the other beats it by the margin.
    const [cLeader, cOther] = leader === 'paddle' ? [cp, ct] : [ct, cp];
    const winner: OcrEngineName = cOther > cLeader + margin ? (leader === 'paddle' ? 'tesseract' : 'paddle') : leader;
    const best = Math.max(ct, cp);
    if ((ct < 0 || cp < 0) && winner !== leader && best < SINGLE_READING_FLOOR) continue;
    won[winner]++;
    lines.push(...g[winner]);
  }
  return { page: { width: p.width, height: p.height, lines }, won };
}

function sameRegion(a: OcrLine, b: OcrLine): boolean {
  const ha = a.bbox[3] - a.bbox[1];
  const hb = b.bbox[3] - b.bbox[1];
  const v = overlap1d(a.bbox[1], a.bbox[3], b.bbox[1], b.bbox[3]);
  const h = overlap1d(a.bbox[0], a.bbox[2], b.bbox[0], b.bbox[2]);
  return v >= 0.5 * Math.min(ha, hb) && h > 0;
}

const round = (v: number) => Math.round(v * 1000) / 1000;
const fmt = (v: number) => v.toFixed(2);
