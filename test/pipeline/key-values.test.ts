// Key-value pairs from the layout: scanned forms (FUNSD), laid out from their annotated words as
// OCR words, and digital invoices through the whole canonical pipeline. A label ending in ":"
// takes the value across a gap on its row or right below it; a row of captions over rows of
// values pairs each value with the caption above it; a value is never a key of its own.
import { describe, expect, it } from 'vitest';
import { assemble } from '../../src/pipeline/canonical/assemble.js';
import type { BBox } from '../../src/pipeline/canonical/model.js';
import { runCanonical } from '../../src/pipeline/index.js';
import { readData, readDataJson } from './data.js';

interface Entity {
  words: { text: string; box: BBox }[];
}

function keyValuesOf(form: string) {
  const entities = readDataJson<{ form: Entity[] }>(`funsd/annotations/${form}.json`).form;
  const words = entities.flatMap((e) => e.words).filter((w) => w.text.trim()).map((w) => ({ text: w.text, bbox: [...w.box] as BBox, confidence: 1 }));
  const doc = assemble('png', 1, [{ page_number: 1, width: 1000, height: 1000, rotation: 0, source: 'ocr_tesseract', words }]);
  return doc.pages[0]!.key_values.map((kv) => [kv.key, kv.value]);
}

describe('key-value pairs on a form', () => {
  it('pairs "TO:" and "FROM:" with the names across the gap, and the name is no key', () => {
    const pairs = keyValuesOf('82200067_0069');
    expect(pairs).toContainEqual(['TO', 'K. A. Sparrow']);
    expect(pairs).toContainEqual(['FROM', 'T. D. Blachly']);
    expect(pairs.map(([k]) => k)).not.toContain('T. D. Blachly');
  });

  it('reads "Key: value" inside the cells of a table', () => {
    const pairs = keyValuesOf('82200067_0069');
    expect(pairs.filter(([k]) => k === 'DIVISION').map(([, v]) => v)).toEqual(expect.arrayContaining(['Portland', 'Boise', 'Eugene', 'Seattle South']));
  });

  it('takes a firm whose name ends on "Company" for a value, not for a caption', () => {
    expect(keyValuesOf('83443897')).toContainEqual(['COMPANY', 'Lorillard Tobacco Company']);
  });

  it('takes the value right below a label that ends in ":"', () => {
    const pairs = keyValuesOf('82200067_0069');
    expect(pairs).toContainEqual(['REGION', '(ONLY IF PARTIAL REGION CONTINUE WITH DIVISION (S) SCOPE)']);
  });
});

describe('grids of captions over values', () => {
  it('pairs every record of a form table with its column caption, stacked captions read as one', () => {
    // 82253362: "NAME OF ACCOUNT | IND/LOR VOLUME | NO. OF STORES" (IND/LOR and NO. OF over
    // VOLUME and STORES), the account list under it, a second set of columns on the right.
    const pairs = keyValuesOf('82253362_3364');
    expect(pairs).toEqual(expect.arrayContaining([
      ['NAME OF ACCOUNT', 'Don & Bens'],
      ['IND/ LOR VOLUME', '26/ 2'],
      ['NO. OF STORES', '20'],
      ['NAME OF ACCOUNT', 'Sac N Pac'],
      ['NAME OF ACCOUNT', 'Shopper Mart'],
      ['NO. OF STORES', '177'],
    ]));
    expect(pairs.filter(([k]) => k === 'NAME OF ACCOUNT')).toHaveLength(19);
  });

  it('a fax cover sheet\'s recipient grid: a company over two lines is one value, the phone set close to it is its own', () => {
    const pairs = keyValuesOf('83573282');
    expect(pairs).toEqual(expect.arrayContaining([
      ['Recipient(s)', 'Mr. Meyer G. Koplow'],
      ['Company', 'Wachtell, Lipton, Rosen & Katz'],
      ['Phone No.', '(212) 403- 1000'],
      ['Fax No.', '(212) 403- 2000'],
      ['Company', 'Brown & Williamson Tobacco Corp.'],
      ['Recipient(s)', 'Mr. Stephen R. Patton'],
    ]));
    // Names are values, never keys.
    expect(pairs.map(([k]) => k)).not.toContain('Mr. Meyer G. Koplow');
  });

  it('an invoice with "Invoice Date: | Due Date: | Reference:" over their values (AzureInterior), and no pairs from its item table', async () => {
    const doc = await runCanonical(readData('invoice2data/compare/AzureInterior.pdf'));
    const pairs = doc.pages.flatMap((p) => p.key_values.map((kv) => [kv.key, kv.value]));
    expect(pairs).toEqual(expect.arrayContaining([
      ['Invoice Date', '03/20/2023'],
      ['Due Date', '04/04/2023'],
      ['Reference', 'CUSTREF123'],
      ['Total', '$ 279.84'],
    ]));
    const keys = pairs.map(([k]) => k);
    for (const column of ['Description', 'Quantity', 'Unit Price', 'Amount']) expect(keys).not.toContain(column);
  });

  it('a caption set close over two values holds two captions (free_fiber: "Numéro de ligne Id.client"), and an address over two lines is one value', async () => {
    const doc = await runCanonical(readData('invoice2data/compare/free_fiber.pdf'));
    const pairs = doc.pages.flatMap((p) => p.key_values.map((kv) => [kv.key, kv.value]));
    expect(pairs).toEqual(expect.arrayContaining([
      ['Numéro de ligne', 'FO10479674'],
      ['Id.client', '10577874'],
      ['Adresse de l’installation', '35 RUE du logiciel libre 69100 VILLEURBANNE'],
    ]));
  });
});

describe('captions that OCR split into rows', () => {
  /** Words as OCR gives them: text and box. */
  const page = (words: [string, number, number, number, number][]) =>
    assemble('png', 1, [{ page_number: 1, width: 754, height: 1000, rotation: 0, source: 'ocr_tesseract', words: words.map(([text, x0, y0, x1, y1]) => ({ text, bbox: [x0, y0, x1, y1] as BBox, confidence: 0.9 })) }]).pages[0]!.key_values.map((kv) => [kv.key, kv.value]);

  it('reads a band of mixed-case captions whose baselines wander as one caption per column', () => {
    // Two sets of "Name of Account | Ind/Lor Volume | Number of Stores" side by side, in three
    // rows of captions that overlap (baselines 8 points apart on 16-point words), a speck read as ".".
    const pairs = page([
      ['Name', 90, 461, 122, 477], ['Ind/Lor', 204, 461, 247, 477], ['Number', 269, 461, 308, 477], ['of', 311, 461, 326, 477], ['Name', 364, 461, 392, 477], ['Ind/Lor', 477, 461, 518, 477],
      ['of', 121, 469, 134, 485], ['Account', 137, 469, 176, 485], ['.', 334, 469, 337, 485], ['of', 390, 469, 403, 485], ['Account', 406, 469, 445, 485],
      ['Volume', 204, 477, 246, 493], ['Stores', 281, 477, 316, 493], ['Volume', 477, 477, 519, 493],
      ['Quality', 76, 505, 108, 521], ['Dairy', 111, 505, 141, 521], ['151/15', 208, 505, 243, 521], ['31', 291, 505, 306, 521], ['Speedy', 364, 505, 396, 521], ['196/13', 480, 505, 515, 521],
      ['Bay', 77, 525, 94, 541], ['Stations', 97, 525, 136, 541], ['81/9', 213, 525, 238, 541], ['18', 292, 525, 307, 541],
      ['Wilson', 79, 545, 109, 561], ['Oil', 112, 545, 125, 561], ['140/13', 211, 545, 246, 561], ['15', 294, 545, 303, 561],
    ]);
    expect(pairs).toEqual(expect.arrayContaining([
      ['Name of Account', 'Quality Dairy'],
      ['Ind/Lor Volume', '151/15'],
      ['Number of Stores', '31'],
      ['Name of Account', 'Wilson Oil'],
      ['Number of Stores', '15'],
      ['Name of Account', 'Speedy'],
      ['Ind/Lor Volume', '196/13'],
    ]));
    expect(pairs).not.toContainEqual(['Name', 'Ind/Lor']);
  });
});

describe('marks and drift on a scanned form', () => {
  const page = (words: [string, number, number, number, number][]) =>
    assemble('png', 1, [{ page_number: 1, width: 754, height: 1000, rotation: 0, source: 'ocr_tesseract', words: words.map(([text, x0, y0, x1, y1]) => ({ text, bbox: [x0, y0, x1, y1] as BBox, confidence: 0.9 })) }]).pages[0]!.key_values.map((kv) => [kv.key, kv.value]);

  it('pairs a ticked box with its caption, in its phrase or just before it', () => {
    const pairs = page([
      ['FROM:', 76, 146, 120, 162], ['R.', 143, 146, 155, 162], ['Richardson', 173, 146, 260, 162], ['OCT', 359, 146, 380, 162], ['05', 384, 146, 398, 162], ['DEC', 497, 146, 518, 162], ['21', 523, 146, 537, 162], ['X', 546, 146, 556, 162],
      ['REGION:', 76, 261, 130, 276], ['FULL', 292, 261, 322, 276], ['PARTIAL', 485, 261, 530, 276], ['x', 582, 261, 592, 276],
    ]);
    expect(pairs).toEqual(expect.arrayContaining([['DEC 21', 'X'], ['PARTIAL', 'x'], ['FROM', 'R. Richardson']]));
  });

  it('continues a value on the rest of its line when the scan is skewed, and takes no speck as a key', () => {
    const pairs = page([
      ['DEPARTURE', 81, 528, 160, 556], ['DATE', 165, 528, 200, 556], ['AND', 205, 528, 235, 556], ['TIME:2/21/80', 240, 528, 378, 556],
      ['4:00', 391, 538, 425, 557], ['P.M.', 430, 538, 473, 557],
      ['#', 40, 700, 50, 715], ['392', 80, 700, 110, 715],
    ]);
    expect(pairs).toContainEqual(['DEPARTURE DATE AND TIME', '2/21/80 4:00 P.M.']);
    expect(pairs.map(([k]) => k)).not.toContain('#');
  });

  it('reads captions over a row of values as columns, and a list of names with numbers as no pairs', () => {
    const pairs = page([
      ['ITEMS', 306, 564, 351, 579], ['QUANTITY', 498, 564, 570, 577], ['REQUIRED', 575, 564, 638, 577],
      ['BASEBALL', 306, 590, 370, 606], ['CAP', 374, 590, 402, 606], ['1500', 537, 589, 577, 605],
      ['WATER', 305, 619, 350, 632], ['BOTTLES', 354, 619, 414, 632], ['500', 547, 616, 577, 632],
      ['Sender', 255, 232, 295, 248], ['Voice', 299, 232, 330, 248], ['Number', 334, 232, 373, 248], ['If', 466, 230, 474, 246], ['problems', 478, 230, 530, 246], ['receiving', 534, 230, 588, 246], ['this', 592, 230, 612, 246], ['fax,', 616, 230, 636, 246], ['call', 640, 230, 660, 246],
      ['212-450-4785', 255, 249, 347, 265], ['212-450-4786', 466, 249, 558, 265],
    ]);
    expect(pairs).toEqual(expect.arrayContaining([
      ['ITEMS', 'BASEBALL CAP'], ['QUANTITY REQUIRED', '1500'], ['ITEMS', 'WATER BOTTLES'],
      ['Sender Voice Number', '212-450-4785'], ['If problems receiving this fax, call', '212-450-4786'],
    ]));
    expect(pairs).not.toContainEqual(['BASEBALL CAP', '1500']);
  });

  it('splits a value set close across two columns where its words turn into a number', () => {
    const pairs = page([
      ['To', 46, 326, 62, 340], ['Company', 361, 322, 416, 340], ['Phone', 519, 320, 560, 337], ['Number', 564, 320, 610, 337],
      ['Thomas', 46, 344, 90, 360], ['Sobol', 94, 344, 130, 360], ['Brown', 362, 340, 400, 357], ['Rudnick', 404, 340, 455, 357], ['Freed', 459, 340, 495, 357], ['617-330-9000', 499, 340, 584, 357],
      ['Joseph', 47, 396, 90, 414], ['Rice', 94, 396, 125, 414], ['Ness', 362, 393, 400, 413], ['Motley', 404, 393, 450, 413], ['843-720-9000', 520, 393, 612, 410],
    ]);
    expect(pairs).toEqual(expect.arrayContaining([['Company', 'Brown Rudnick Freed'], ['Phone Number', '617-330-9000'], ['To', 'Thomas Sobol']]));
  });
});


describe('values written as paragraphs', () => {
  it('reads a paragraph under its caption to its end: over a skewed line cut into pieces, across a gap, and past a sentence that ends a line', () => {
    const pairs = keyValuesOf('82250337_0338');
    expect(pairs).toContainEqual([
      'SALES FORCE INVOLVEMENT',
      'They have crew- worked distribution, and it is reported that they may crew- work it again Sales force has been busy promoting old style backs to clean up inventory. All POS is being converted to "B" Kool.',
    ]);
    expect(pairs).toContainEqual(['CHAINS ACCEPTANCE/ MERCHANDISING', 'This has not been a problem. New packaging is just following on the old "packaging".']);
    const shields = keyValuesOf('82251504').find(([k]) => k === 'application of shields');
    expect(shields?.[1]).toMatch(/^The displays are easily assembled .* against the register\. As well as the ability .* goes through$/);
  });

  it('reads a key printed over two lines, and the address block beside an empty key column to its end', () => {
    // 82491256: "LORILLARD" over "ENTITIES:" and "PLAINTIFF" over "COUNSEL:", each value on the
    // key's last line; the counsel's firm, lawyer, street, city and phone stand one under another
    // while nothing stands in the key column beside them, until "LORILLARD" over "COUNSEL:".
    const pairs = keyValuesOf('82491256');
    expect(pairs).toContainEqual(['LORILLARD ENTITIES', 'Lorillard Tobacco Company']);
    expect(pairs).toContainEqual([
      'PLAINTIFF COUNSEL',
      'Wartnick, Chaber, Harowitz, Smith & Tigerman Madelyn J. Chaber 101 California Street, Suite 2200 San Francisco, California 94111 415 986- 5566',
    ]);
    expect(pairs).toContainEqual(['DATE FILED', 'July 23, 1998']);
    expect(pairs.map(([k]) => k)).not.toContain('ENTITIES');
  });

  it('pairs captions over a row of values by column, where a name beside a number would read as a key', () => {
    // 83823750: "Sender | Number of Pages (this page included)" over "Charles Duggan | 2".
    const pairs = keyValuesOf('83823750');
    expect(pairs).toEqual(expect.arrayContaining([['Sender', 'Charles Duggan'], ['Number of Pages (this page included)', '2']]));
    expect(pairs).not.toContainEqual(['Charles Duggan', '2']);
  });

  it('takes the options of a checklist for no captions: a row of boxes over another is no grid', () => {
    // 86079776: "☐ Relationship-Building | ☐ Retention | ☐ Acquisition | ☐ Loyalty" over
    // "☐ Blocking | ☐ Cross-Sell | ☐ Up-Sell | ☐ Lead Generation".
    const pairs = keyValuesOf('86079776_9777');
    expect(pairs.filter(([k, v]) => /☐/.test(k) || /☐/.test(v))).toEqual([]);
    expect(pairs).toContainEqual(['Date/ Time', '10/30/98 1:46 PM']);
  });

  it('reads a clock time in a fax header as a time, not as a key and its value', () => {
    // 83624198: "FEB 25 '98 18:23 FR ..." across the top of the page.
    expect(keyValuesOf('83624198').map(([k]) => k)).not.toContain("FEB 25 '98 18");
  });

  it('orders rows by their words, not by a number printed sideways in the margin beside them', () => {
    // 83641919: a Bates number printed upright down the right margin shares a row with a record
    // of the account table; that row stood above the table's captions.
    const pairs = keyValuesOf('83641919_1921');
    expect(pairs).toEqual(expect.arrayContaining([
      ['Name of Account', 'Walmart'],
      ['Number of Stores', '39'],
    ]));
    expect(pairs).not.toContainEqual(['Walmart', '39']);
  });

  it('takes a number set down the page for no key, value or table cell, and the records beside it stay in their table', () => {
    // 82253245: the Bates number runs down the margin beside the last records of the account list.
    const pairs = keyValuesOf('82253245_3247');
    expect(pairs).toEqual(expect.arrayContaining([
      ['NAME OF ACCOUNT', 'Dairy Marts'],
      ['NAME OF ACCOUNT', 'Widman Drugs'],
      ['NO OF STORES', '43'],
    ]));
    expect(pairs.filter(([k, v]) => k === 'Widman Drugs' || v.includes('82253245') || k.includes('82253245'))).toEqual([]);
    // The captions over the list are its header, not a caption with its value.
    expect(pairs.filter(([k]) => k === 'NAME OF ACCOUNT').map(([, v]) => v)).not.toContain('VOLUME STORES NAME OF ACCOUNT VOLUME STORES');
  });
});
