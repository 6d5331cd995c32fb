// Labels that announce a reference number, in English, German, French, Spanish, Dutch and Italian.
// Matched on folded text (lower case, no accents); a label is followed by separators (":", "#",
// "No.", "n°") and then the number itself.

export const REFERENCE_LABELS: Record<'invoice_number' | 'order_number' | 'reference_number' | 'customer_number', string[]> = {
  invoice_number: [
    'invoice number', 'invoice no', 'invoice nr', 'invoice num', 'invoice id', 'invoice #', 'invoice', 'inv no', 'inv #', 'bill no', 'bill number',
    'tax invoice', 'receipt no', 'receipt number', 'receipt #', 'rechnungsnummer', 'rechnungsnr', 'rechnung nr', 'rechnung', 'belegnummer', 'beleg nr',
    'numero de facture', 'n de facture', 'facture n', 'facture no', 'facture', 'numero de factura', 'factura no', 'factura n', 'factura',
    'factuurnummer', 'factuurnr', 'factuur nr', 'numero fattura', 'fattura n', 'fattura',
    'faktura vat nr', 'faktura nr', 'numer faktury', 'faktura', 'fakturanummer', 'fakturanr', 'cislo faktury', 'laskun numero',
  ],
  order_number: [
    'order number', 'order no', 'order nr', 'order id', 'order #', 'purchase order', 'po number', 'po no', 'p o no', 'po #', 'your order',
    'bestellnummer', 'bestell nr', 'auftragsnummer', 'auftrags nr', 'auftrag nr', 'numero de commande', 'n de commande', 'commande n', 'commande no',
    'numero de pedido', 'pedido n', 'pedido no', 'n de pedido', 'ordernummer', 'bestelnummer', 'numero ordine', 'ordine n',
  ],
  customer_number: [
    'customer number', 'customer no', 'customer id', 'customer #', 'account number', 'account no', 'client id', 'client no', 'kundennummer', 'kundennr',
    'kunden nr', 'numero client', 'n client', 'id client', 'numero de cliente', 'cliente n', 'klantnummer', 'klant nr', 'codice cliente',
  ],
  reference_number: [
    'reference number', 'reference no', 'reference', 'ref no', 'ref #', 'ref', 'your reference', 'our reference', 'payment reference', 'booking id',
    'booking reference', 'booking no', 'transaction id', 'referenz', 'ihre referenz', 'unsere referenz', 'verwendungszweck', 'reference de paiement',
    'votre reference', 'referencia', 'su referencia', 'referentie', 'kenmerk', 'betalingskenmerk', 'riferimento',
  ],
};

/**
 * Separators between a label and its value: ":", "#", "No.", "n°", "Nr.", "number". Each run of
 * them has one reading: a dot after "no" or "nr" is the separator ".", spaces are read only
 * between separators and once after the last. A gap that several readings match ("nº" as "n[º]"
 * or "n\s?[º]", spaces split between two `\s*`) made a failing label backtrack exponentially:
 * "inv#" followed by 30 "nº  " took minutes.
 */
export const LABEL_GAP = String.raw`(?:(?:\s*(?:[:#=.\-–|]|n[°ºo]|nr|num|number|nummer|numero|n(?:\.\s?|\s)[°º]))+\s*)?`;

export const PHONE_LABELS = /\b(?:tel|tél|tele?phone|téléphone|telefon|teléfono|telefono|phone|ph|fon|fax|mobile|mobil|mob|cell|handy|gsm|hp|call|whatsapp|contact)\b\.?/iu;
export const CARD_LABELS = /\b(?:card|karte|carte|tarjeta|visa|mastercard|amex|maestro|cb)\b/iu;
export const TAX_LABELS = /\b(?:vat|vat\s?(?:reg|id|no|number)|tax\s?id|tax\s?no|tin|ust[-\s.]?id(?:nr)?|ustid|ust[-\s.]?idnr|umsatzsteuer[-\s]?id|steuer[-\s]?nr|steuernummer|mwst|tva|n°\s?tva|tva\s?intra(?:communautaire)?|btw|btw[-\s]?nr|iva|nif|cif|p\.?\s?iva|partita\s?iva|gstin|gst\s?(?:no|reg)|uid|mva|vat\s?reg|nip|regon|abn|ein|di[c\u010d]|i[c\u010d][-\s]?dph|pvm(?:\s?kodas)?|kmkr|pvn|ddv|oib|cvr(?:[-\s]?nr)?|moms(?:[-\s]?(?:nr|reg(?:[-\s.]?nr)?))?|momsnr|alv(?:[-\s]?(?:nro|numero))?|nipc|afm|ad[o\u00f3]sz[a\u00e1]m)(?![a-z0-9\u00e0-\u017e])\.?|(?:^|[\s(:;,])(?:\u0438\u043d\u043d|\u03b1\u03c6\u03bc|\u0434\u0434\u0441)(?![\u0400-\u04ff\u0370-\u03ff])/iu;
