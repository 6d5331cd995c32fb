// Hostile documents built from real ones, for the resource-limit tests and the fuzz campaign:
// a PPTX whose slide inflates to huge XML, a PDF with a million text operators, and friends.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';

export const DATA = path.resolve(import.meta.dirname, '../../../shared/data');
const BASE_PPTX = path.join(DATA, 'pptx-python-pptx/files/prs-notes.pptx');

/** A real deck whose first slide carries `shapes` extra text shapes (about 300 bytes of XML each). */
export function pptxWithBigSlide(shapes: number): Uint8Array {
  const files = unzipSync(readFileSync(BASE_PPTX));
  const slide = strFromU8(files['ppt/slides/slide1.xml']!);
  const one =
    '<p:sp><p:nvSpPr><p:cNvPr id="9" name="t"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="100" cy="100"/></a:xfrm></p:spPr>' +
    '<p:txBody><a:bodyPr/><a:p><a:r><a:t>hostile text run</a:t></a:r></a:p></p:txBody></p:sp>';
  const bomb = slide.replace('</p:spTree>', `${one.repeat(shapes)}</p:spTree>`);
  files['ppt/slides/slide1.xml'] = strToU8(bomb);
  return zipSync(files, { level: 9 });
}

/** A one-page PDF whose content stream holds `operators` text-showing operators. */
export function pdfWithTextOperators(operators: number): Uint8Array {
  const ops: string[] = ['BT /F1 1 Tf'];
  // Placed with Tm (absolute), each on its own spot, all on the 612×792 page (a reader keeps only
  // what the page shows): rows of 600 one point apart, 22 points between rows (20,000 fit).
  for (let i = 0; i < operators; i++) ops.push(`1 0 0 1 ${i % 600} ${10 + Math.floor(i / 600) * 22} Tm (x) Tj`);
  ops.push('ET');
  return pdfWithContent(ops.join('\n'));
}

/**
 * A one-page PDF (612×792, Helvetica as /F1) drawing `content`, a content stream. `count` is what
 * its page tree claims (/Count): more than 1 makes a file whose other pages cannot be loaded.
 */
export function pdfWithContent(content: string, count = 1): Uint8Array {
  return pdfOfObjects([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [3 0 R] /Count ${count} >>`,
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    streamObject(content),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}

/**
 * A one-page PDF of form XObjects nested `depth` deep, each drawing the next `fanout` times, the
 * last a small square: `fanout ** depth` drawn objects from a file of a few KB. PDFium parses every
 * drawing of a form on its own, so 6 deep and 10 to a level asks for about 2 GB.
 */
export function pdfWithNestedForms(depth: number, fanout: number): Uint8Array {
  const draws = Array.from({ length: fanout }, (_, i) => `q 1 0 0 1 ${i} 0 cm /X Do Q`).join('\n');
  // Objects 1-3: catalog, pages, page; form k (0-based) is object 4 + k, the page's content last.
  const forms = Array.from({ length: depth }, (_, k) =>
    k === depth - 1
      ? streamObject('0 0 1 1 re f', '/Type /XObject /Subtype /Form /BBox [0 0 612 792]')
      : streamObject(draws, `/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /XObject << /X ${5 + k} 0 R >> >>`),
  );
  return pdfOfObjects([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${4 + depth} 0 R /Resources << /XObject << /X 4 0 R >> >> >>`,
    ...forms,
    streamObject(draws),
  ]);
}

function streamObject(content: string, dictionary = ''): string {
  return `<< ${dictionary} /Length ${Buffer.byteLength(content)} >>\nstream\n${content}\nendstream`;
}

/** A PDF of `objects` (numbered from 1, the first the catalog), with its cross-reference table. */
function pdfOfObjects(objects: string[]): Uint8Array {
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out);
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A ZIP (PPTX by name) with one member that declares and inflates to `megabytes` of zeros. */
export function zipBomb(megabytes: number): Uint8Array {
  const files = unzipSync(readFileSync(BASE_PPTX));
  files['ppt/slides/slide1.xml'] = new Uint8Array(megabytes * 1024 * 1024).fill(0x20);
  return zipSync(files, { level: 9 });
}

/** XML nested `depth` levels deep in the first slide. */
export function pptxDeepXml(depth: number): Uint8Array {
  const files = unzipSync(readFileSync(BASE_PPTX));
  const slide = strFromU8(files['ppt/slides/slide1.xml']!);
  files['ppt/slides/slide1.xml'] = strToU8(slide.replace('</p:spTree>', `${'<a:x>'.repeat(depth)}${'</a:x>'.repeat(depth)}</p:spTree>`));
  return zipSync(files, { level: 9 });
}
