// Ruling-line clean-up: producers draw one visual line as many pieces (one per cell, or twice
// for a fake bold border). Collinear pieces that touch are merged so that a grid's edges are
// whole before cells are read off them.

export interface RuleLine {
  /** Horizontal: y is `pos`, x runs from `from` to `to`. Vertical: x is `pos`, y runs. */
  pos: number;
  from: number;
  to: number;
}

export interface Rulings {
  horizontal: RuleLine[];
  vertical: RuleLine[];
}

export interface RawRule {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Within this distance (pt), two rules are the same line, and touching ends join. */
export const RULE_TOLERANCE = 2;

export function normaliseRules(rules: readonly RawRule[]): Rulings {
  const h: RuleLine[] = [];
  const v: RuleLine[] = [];
  for (const r of rules) {
    if (r.y0 === r.y1) h.push({ pos: r.y0, from: r.x0, to: r.x1 });
    else if (r.x0 === r.x1) v.push({ pos: r.x0, from: r.y0, to: r.y1 });
  }
  return { horizontal: mergeCollinear(h), vertical: mergeCollinear(v) };
}

function mergeCollinear(lines: RuleLine[]): RuleLine[] {
  lines.sort((a, b) => a.pos - b.pos || a.from - b.from);
  const out: RuleLine[] = [];
  for (const l of lines) {
    let hit: RuleLine | undefined;
    // `out` stays sorted by position, so only its tail can be within tolerance.
    for (let i = out.length - 1; i >= 0 && l.pos - out[i].pos <= RULE_TOLERANCE; i--) {
      const o = out[i];
      if (l.from <= o.to + RULE_TOLERANCE && l.to >= o.from - RULE_TOLERANCE) {
        hit = o;
        break;
      }
    }
    if (hit) {
      hit.from = Math.min(hit.from, l.from);
      hit.to = Math.max(hit.to, l.to);
    } else out.push({ ...l });
  }
  return out;
}

/** Groups of horizontal and vertical rules that cross or touch one another. */
export function connectedGrids(r: Rulings): Rulings[] {
  const all = [...r.horizontal.map((l) => ({ l, h: true })), ...r.vertical.map((l) => ({ l, h: false }))];
  const parent = all.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  const t = RULE_TOLERANCE + 1;
  for (let i = 0; i < r.horizontal.length; i++) {
    const h = r.horizontal[i];
    for (let j = 0; j < r.vertical.length; j++) {
      const v = r.vertical[j];
      if (v.pos >= h.from - t && v.pos <= h.to + t && h.pos >= v.from - t && h.pos <= v.to + t) {
        parent[find(i)] = find(r.horizontal.length + j);
      }
    }
  }
  const groups = new Map<number, Rulings>();
  all.forEach((item, i) => {
    const root = find(i);
    let g = groups.get(root);
    if (!g) groups.set(root, (g = { horizontal: [], vertical: [] }));
    (item.h ? g.horizontal : g.vertical).push(item.l);
  });
  return [...groups.values()];
}
