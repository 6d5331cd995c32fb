// A small, well-formed PDF written by hand for tests that need a page mix no file in shared/data
// has: digital text pages (Helvetica text objects) and scanned pages (a JPEG drawn full-page),
// optionally with an invisible text layer over the scan (text render mode 3, as OCR "sandwich"
// PDFs carry) that need not say what the image shows.
import sharp from 'sharp';

/**
 * A text page: one line per entry from the top. With `columns` (x positions in points), a line's
 * cells separated by tabs are set at those positions, as an unruled table prints them.
 */
export type PdfPageSpec = { text: string[]; columns?: number[] } | { scan: string | Buffer; dpi: number; hiddenText?: string[] } | { drawing: string };

const esc = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);

export async function buildPdf(pages: PdfPageSpec[]): Promise<Buffer> {
  const objects: (string | Buffer)[] = [];
  const add = (body: string | Buffer) => objects.push(body) ;
  add('<< /Type /Catalog /Pages 2 0 R >>');
  add(''); // the page tree, filled in once the kids are known
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const kids: number[] = [];
  for (const spec of pages) {
    if ('drawing' in spec) {
      // A letter page of vector graphics only: the content stream's operators as given.
      add(`<< /Length ${Buffer.byteLength(spec.drawing)} >>\nstream\n${spec.drawing}\nendstream`);
      add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${objects.length} 0 R >>`);
    } else if ('text' in spec) {
      const xs = spec.columns ?? [72];
      const ops = spec.text.flatMap((line, i) => line.split('\t').map((cell, k) => `BT /F1 12 Tf ${xs[k] ?? xs[xs.length - 1]!} ${720 - i * 18} Td (${esc(cell)}) Tj ET`)).join('\n');
      add(`<< /Length ${Buffer.byteLength(ops)} >>\nstream\n${ops}\nendstream`);
      const content = objects.length;
      add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${content} 0 R >>`);
    } else {
      const { data, info } = await sharp(spec.scan).flatten({ background: '#ffffff' }).toColourspace('srgb').jpeg({ quality: 90 }).toBuffer({ resolveWithObject: true });
      const [w, h] = [(info.width * 72) / spec.dpi, (info.height * 72) / spec.dpi];
      add(Buffer.concat([Buffer.from(`<< /Type /XObject /Subtype /Image /Width ${info.width} /Height ${info.height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length ${data.length} >>\nstream\n`), data, Buffer.from('\nendstream')]));
      const image = objects.length;
      const hidden = (spec.hiddenText ?? []).map((line, i) => `BT 3 Tr /F1 10 Tf 20 ${(h - 40 - i * 14).toFixed(2)} Td (${esc(line)}) Tj ET`);
      const ops = [`q ${w.toFixed(2)} 0 0 ${h.toFixed(2)} 0 0 cm /Im1 Do Q`, ...hidden].join('\n');
      add(`<< /Length ${ops.length} >>\nstream\n${ops}\nendstream`);
      const content = objects.length;
      add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${w.toFixed(2)} ${h.toFixed(2)}] /Resources << /XObject << /Im1 ${image} 0 R >> /Font << /F1 3 0 R >> >> /Contents ${content} 0 R >>`);
    }
    kids.push(objects.length);
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n%\xE2\xE3\xCF\xD3\n', 'latin1')];
  let offset = chunks[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(offset);
    const chunk = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), Buffer.isBuffer(body) ? body : Buffer.from(body), Buffer.from('\nendobj\n')]);
    chunks.push(chunk);
    offset += chunk.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  chunks.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${offset}\n%%EOF\n`));
  return Buffer.concat(chunks);
}
