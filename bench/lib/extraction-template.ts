// A realistic invoice template for timing the embedded extractor: the header fields most invoice
// templates have (some nested, some with formats), a line-items array of objects and a few
// validation rules. Its values do not matter for timing; its shape does (labels to look for,
// columns to map, rules to run).

export const INVOICE_TIMING_TEMPLATE = {
  json_schema: {
    type: 'object',
    required: ['invoice_number', 'issue_date', 'total'],
    properties: {
      invoice_number: { type: 'string' },
      order_number: { type: 'string' },
      issue_date: { type: 'string', format: 'date' },
      due_date: { type: 'string', format: 'date' },
      vendor: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          vat_id: { type: 'string' },
          address: { type: 'string' },
          email: { type: 'string', format: 'email' },
          phone: { type: 'string' },
        },
      },
      customer: {
        type: 'object',
        properties: { name: { type: 'string', 'x-aliases': ['Bill to', 'Sold to'] }, customer_number: { type: 'string' } },
      },
      currency: { type: 'string' },
      subtotal: { type: 'number' },
      tax_amount: { type: 'number' },
      total: { type: 'number' },
      iban: { type: 'string' },
      bic: { type: 'string' },
      payment_terms: { type: 'string' },
      line_items: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            description: { type: 'string' },
            quantity: { type: 'number' },
            unit_price: { type: 'number' },
            vat_rate: { type: 'number' },
            amount: { type: 'number' },
          },
        },
      },
    },
  },
  validation_rules: [
    { kind: 'required', field: 'invoice_number', severity: 'error' },
    { kind: 'date', field: 'issue_date', params: { min: '2000-01-01' }, severity: 'warn' },
    { kind: 'date_order', fields: ['issue_date', 'due_date'], severity: 'warn' },
    { kind: 'range', field: 'total', params: { min: 0 }, severity: 'warn' },
    { kind: 'length', field: 'line_items', params: { min: 1 }, severity: 'warn' },
  ],
};
