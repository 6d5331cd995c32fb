// Entities (processing mode `entities`): deterministic recognisers over the canonical document.
export { type Entity, type EntityOptions, type EntityType, ENTITY_TYPES, documentHints, recogniseEntities } from './recognize.js';
export { parseDate, findDates, inferDateOrder, type DateOrder } from './dates.js';
export { parseAmount, findMoney, currencyCode } from './money.js';
export { parseNumber } from './numbers.js';
export { isValidIban, luhnValid } from './checksums.js';
export { isValidVat, readTaxId, type TaxIdPrefixMode } from './tax-ids.js';
export type { DocInput } from './text.js';
