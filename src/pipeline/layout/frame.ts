// Pages whose text mostly runs sideways or upside down (a landscape table printed on a portrait
// page without /Rotate) are laid out in a turned frame where that text reads left to right, and
// every box is turned back afterwards, so the layout code only ever sees horizontal text.
import type { BBox } from '../canonical/model.js';

export interface Frame {
  /** Clockwise quarter turns of the text direction on the page. */
  quarter: number;
  width: number;
  height: number;
}

/** Page box → frame box (text reads left to right in the frame). */
export function toFrame(b: BBox, f: Frame): BBox {
  const { width: W, height: H } = f;
  switch (f.quarter) {
    case 1: // text runs down the page: turn the page a quarter counter-clockwise
      return [b[1], W - b[2], b[3], W - b[0]];
    case 2:
      return [W - b[2], H - b[3], W - b[0], H - b[1]];
    case 3: // text runs up the page: turn a quarter clockwise
      return [H - b[3], b[0], H - b[1], b[2]];
    default:
      return b;
  }
}

/** Frame box → page box, the inverse of toFrame. */
export function fromFrame(b: BBox, f: Frame): BBox {
  const { width: W, height: H } = f;
  switch (f.quarter) {
    case 1:
      return [W - b[3], b[0], W - b[1], b[2]];
    case 2:
      return [W - b[2], H - b[3], W - b[0], H - b[1]];
    case 3:
      return [b[1], H - b[2], b[3], H - b[0]];
    default:
      return b;
  }
}
