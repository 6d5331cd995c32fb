// Minimal PPTX decks built in code for the reader's edge cases: one text shape per slide, the
// parts a reader needs (content types, root and presentation relationships) and nothing else.
import { strToU8, zipSync, type Zippable } from 'fflate';

const NS =
  'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/';
const RELS_NS = 'xmlns="http://schemas.openxmlformats.org/package/2006/relationships"';

/** A text shape at (x, y) EMU, 8 × 1 inch by default. */
export function sp(text: string, x = 914_400, y = 1_000_000, cx = 7_315_200, cy = 914_400): string {
  return (
    `<p:sp><p:nvSpPr><p:cNvPr id="2" name="T"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:spPr><a:xfrm><a:off x="${x}" y="${y}"/><a:ext cx="${cx}" cy="${cy}"/></a:xfrm></p:spPr>` +
    `<p:txBody><a:bodyPr/><a:p><a:r><a:rPr lang="en-US" sz="2400"/><a:t>${text}</a:t></a:r></a:p></p:txBody></p:sp>`
  );
}

/** A slide part holding `body` (shapes), with an optional XML declaration of its own. */
export function slide(body: string, declaration = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'): string {
  return `${declaration}<p:sld ${NS}><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>${body}</p:spTree></p:cSld></p:sld>`;
}

export interface DeckOptions {
  /** Slide parts by index (0-based) as raw bytes instead of the UTF-8 of `slides[i]`. */
  slideBytes?: Record<number, Uint8Array>;
  /** The slide list order, as indexes into `slides` (repeats allowed); default every slide once. */
  order?: number[];
  /** Name of the main part (ppt/presentation.xml by default). */
  main?: string;
  /** Slide size in EMU as written ("9144000", "-9144000", "1e30"). */
  sldSz?: [string, string];
  /** Speaker notes by slide index. */
  notes?: Record<number, string>;
  /** Parts to leave out of the ZIP (a missing slide). */
  omit?: string[];
  /** Text placed before the root element of presentation.xml (a DOCTYPE). */
  presentationProlog?: string;
}

export function deck(slides: string[], options: DeckOptions = {}): Uint8Array {
  const main = options.main ?? 'ppt/presentation.xml';
  const dir = main.slice(0, main.lastIndexOf('/') + 1);
  const base = main.slice(main.lastIndexOf('/') + 1);
  const order = options.order ?? slides.map((_, i) => i);
  const [cx, cy] = options.sldSz ?? ['9144000', '6858000'];
  const files: Zippable = {
    '[Content_Types].xml': strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/${main}" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/></Types>`,
    ),
    '_rels/.rels': strToU8(`<?xml version="1.0"?><Relationships ${RELS_NS}><Relationship Id="rId1" Type="${REL}officeDocument" Target="${main}"/></Relationships>`),
    [main]: strToU8(
      `<?xml version="1.0" encoding="UTF-8"?>${options.presentationProlog ?? ''}<p:presentation ${NS}><p:sldIdLst>${order.map((s, i) => `<p:sldId id="${256 + i}" r:id="rId${s + 1}"/>`).join('')}</p:sldIdLst><p:sldSz cx="${cx}" cy="${cy}"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>`,
    ),
    [`${dir}_rels/${base}.rels`]: strToU8(
      `<?xml version="1.0"?><Relationships ${RELS_NS}>${slides.map((_, i) => `<Relationship Id="rId${i + 1}" Type="${REL}slide" Target="slides/slide${i + 1}.xml"/>`).join('')}</Relationships>`,
    ),
  };
  slides.forEach((s, i) => {
    files[`${dir}slides/slide${i + 1}.xml`] = options.slideBytes?.[i] ?? strToU8(s);
    const note = options.notes?.[i];
    if (note === undefined) return;
    files[`${dir}slides/_rels/slide${i + 1}.xml.rels`] = strToU8(
      `<?xml version="1.0"?><Relationships ${RELS_NS}><Relationship Id="rIdN" Type="${REL}notesSlide" Target="../notesSlides/notesSlide${i + 1}.xml"/></Relationships>`,
    );
    files[`${dir}notesSlides/notesSlide${i + 1}.xml`] = strToU8(
      `<?xml version="1.0"?><p:notes ${NS}><p:cSld><p:spTree><p:sp><p:nvSpPr><p:cNvPr id="3" name="N"/><p:cNvSpPr/><p:nvPr><p:ph type="body" idx="1"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>${note}</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:notes>`,
    );
  });
  for (const name of options.omit ?? []) delete files[name];
  return zipSync(files);
}
