// Real documents from ../shared/data (see its README): used in place, never copied.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = new URL('../../../shared/data/', import.meta.url);

export const dataPath = (relative: string) => fileURLToPath(new URL(relative, ROOT));
export const readData = (relative: string): Uint8Array => readFileSync(new URL(relative, ROOT));
export const readDataText = (relative: string): string => readFileSync(new URL(relative, ROOT), 'utf8');
export const readDataJson = <T>(relative: string): T => JSON.parse(readDataText(relative)) as T;
export const listData = (relative: string): string[] => readdirSync(new URL(relative, ROOT)).sort();

/** Lower case, letters and digits only: for comparing text across tools and line breaks. */
export const squash = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
