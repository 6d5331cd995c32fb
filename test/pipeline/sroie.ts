// SROIE receipts (../shared/data/sroie) by id: the ground-truth text document (bench/lib/sroie.ts,
// shared with the eval) and the expected key fields of key/<id>.json.
import { SROIE_SCHEMA, sroieDocument, sroieText } from '../../bench/lib/sroie.js';
import type { DocInput } from '../../src/pipeline/entities/text.js';
import { readDataJson, readDataText } from './data.js';

export const receiptDocument = (id: string): DocInput => sroieDocument(readDataText(`sroie/box/${id}.csv`));

export const receiptKey = (id: string) => readDataJson<{ company: string; date: string; address: string; total: string }>(`sroie/key/${id}.json`);

export const RECEIPT_SCHEMA = SROIE_SCHEMA;

/** The receipt's transcript as a plain-text file (bench/lib/sroie.ts sroieText), for tests that upload it through the API. */
export const receiptText = (id: string): { name: string; bytes: Buffer } => ({ name: `sroie-${id}.txt`, bytes: Buffer.from(sroieText(readDataText(`sroie/box/${id}.csv`))) });
