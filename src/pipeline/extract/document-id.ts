// A document without an invoice number (a payment receipt, a booking confirmation) is known by its
// booking, reservation or transaction id. That id stands in for the invoice number below the review
// floor: it may as well be another document's (the booking's, the payment's).
import { ownLabelReader } from './own-labels.js';
import type { Candidate, ScalarContext } from './scalars.js';
import type { FieldSpec } from './schema-fields.js';

const DOCUMENT_ID_SCHEMA = {
  type: 'object',
  properties: {
    document_id: {
      type: 'string',
      'x-aliases': [
        'booking id', 'booking reference', 'booking no', 'booking number', 'reservation no', 'reservation number', 'confirmation number', 'confirmation no',
        'transaction id', 'transaction no', 'buchungsnummer', 'reservierungsnummer', 'numero de reservation', 'numero de reserva', 'reserveringsnummer',
      ],
    },
  },
};

/** Below the default review floor (0.7). */
const STAND_IN = 0.5;

/** The booking or transaction id, for an invoice number field that found nothing of its own. */
export function documentIdStandIn(spec: FieldSpec, ctx: ScalarContext): Candidate[] {
  if (spec.concept?.id !== 'invoice_number') return [];
  if (!ctx.lines.some((l) => /\b(?:booking|reservation|confirmation|transaction|buchung|reservierung|reserva|reservering)/i.test(l.text))) return [];
  const found = ownLabelReader(DOCUMENT_ID_SCHEMA, ctx, ctx.plan)(0, (c) => typeof c.value === 'string' && /\d/.test(c.value));
  return found ? [{ ...found, confidence: Math.min(found.confidence, STAND_IN) }] : [];
}
