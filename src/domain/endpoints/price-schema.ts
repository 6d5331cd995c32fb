// What a model's tokens cost, as endpoint bodies take it. The ceiling keeps a typo (or 1e308)
// from turning every recorded cost into Infinity and every dollar limit into an instant stop:
// no model is priced anywhere near $10,000 per million tokens.
import { Type } from 'typebox';

export const MAX_PRICE_PER_MTOK = 10_000;

const Dollars = Type.Number({ minimum: 0, maximum: MAX_PRICE_PER_MTOK });

export const ModelPriceBody = Type.Object(
  { input: Dollars, output: Dollars },
  { additionalProperties: false, description: 'US dollars per million input and output tokens (at most 10,000 each); what the calls cost (null: recorded at $0)' },
);
