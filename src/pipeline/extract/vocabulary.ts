// What common invoice and receipt fields are called, in field names and on paper, in English,
// German, French, Spanish (with Dutch and Italian where they cost nothing). A template field is
// tied to a concept by its name, title or x-aliases; the concept adds the labels to look for in
// the document and, when no label is found, the entity that can stand in for one.
import type { EntityType } from '../entities/recognize.js';

export type ValueKind = 'money' | 'number' | 'date' | 'text' | 'id' | 'currency' | 'percent';

export interface Concept {
  id: string;
  /** Field names (humanised: "amount untaxed") that mean this concept. */
  names: string[];
  /** Labels printed on documents (folded: lower case, no accents). */
  labels: string[];
  kind: ValueKind;
  /**
   * Labels that name the kind of value but not whose it is ("Reference": the customer's, the
   * order's, the payment's?): a value found only under one of them stays below the review floor,
   * unless the field's own name is that label.
   */
  vague?: string[];
  /** Stand-in when no label is found. */
  fallback?: { entity?: EntityType; strategy?: 'first' | 'largest' | 'dominant_currency' | 'vendor' } & { confidence: number };
}

/**
 * Words a total is printed with, and the qualifiers after them that say whether it includes the
 * tax ("Total incl. VAT", "Total inkl. MWST", "Total TTC": the total) or leaves it out ("Total
 * excl. VAT", "Total exkl. MWST", "Summe zzgl. MwSt", "Total HT", "Montant hors taxes": the
 * subtotal). Every total word takes every qualifier, so no language is a special case; a tax word
 * after them ("MWST") names what the total includes, not the tax amount (scalars.ts).
 */
export const TOTAL_WORDS = ['total', 'summe', 'gesamt', 'gesamtbetrag', 'gesamtsumme', 'betrag', 'rechnungsbetrag', 'montant', 'totaal', 'totale', 'importe', 'importo'];
export const INCLUDING_TAX = ['incl', 'inkl', 'inc', 'including', 'inclusive', 'inklusive', 'inclusief', 'incluso', 'incluido', 'ttc'];
export const EXCLUDING_TAX = ['excl', 'exkl', 'ex', 'excluding', 'exclusive', 'exklusive', 'exclusief', 'zzgl', 'ohne', 'ht', 'hors taxes', 'sans', 'sin', 'senza'];
const qualifiedTotals = (qualifiers: string[]) => TOTAL_WORDS.flatMap((t) => qualifiers.map((q) => `${t} ${q}`));

export const CONCEPTS: Concept[] = [
  {
    id: 'invoice_number',
    names: ['invoice number', 'invoice no', 'invoice id', 'invoice num', 'invoice nr', 'invoice ref', 'bill number', 'receipt number', 'document number', 'number', 'invoice'],
    labels: [
      'invoice number', 'invoice no', 'invoice nr', 'invoice #', 'invoice id', 'inv no', 'invoice', 'bill no', 'receipt no', 'receipt number', 'document no',
      'tax invoice no', 'rechnungsnummer', 'rechnungsnr', 'rechnung nr', 'rechnung', 'belegnummer', 'beleg nr', 'numero de facture', 'n de facture', 'facture n',
      'facture no', 'facture', 'numero de factura', 'factura n', 'factura no', 'factura', 'n factura', 'factuurnummer', 'factuurnr', 'factuur nr', 'factuur',
      'numero fattura', 'fattura n', 'fattura',
      // Polish, Czech, Slovak and the Nordic languages.
      'faktura vat nr', 'faktura nr', 'numer faktury', 'faktura', 'fakturanummer', 'fakturanr', 'faktura nummer', 'cislo faktury', 'laskun numero', 'laskunumero',
    ],
    kind: 'id',
    fallback: { entity: 'invoice_number', strategy: 'first', confidence: 0.6 },
  },
  {
    id: 'invoice_date',
    names: ['date', 'invoice date', 'issue date', 'document date', 'bill date', 'receipt date', 'date issued', 'date of issue', 'invoice dt'],
    labels: [
      'invoice date', 'date of invoice', 'date of issue', 'issue date', 'issued on', 'billing date', 'bill date', 'receipt date', 'document date', 'invoice dt', 'date',
      'rechnungsdatum', 'belegdatum', 'ausstellungsdatum', 'datum', 'date de facture', 'date de la facture', 'date d emission', 'date facture', 'du',
      'fecha de factura', 'fecha de emision', 'fecha factura', 'fecha', 'factuurdatum', 'factuur datum', 'data fattura', 'data',
      'data wystawienia', 'data faktury', 'fakturadato', 'fakturadatum', 'datum vystaveni', 'laskun paivays', 'paivays',
    ],
    kind: 'date',
    fallback: { entity: 'date', strategy: 'first', confidence: 0.45 },
  },
  {
    id: 'due_date',
    names: ['due date', 'date due', 'payment due', 'payment due date', 'due', 'pay by', 'due on'],
    labels: [
      'due date', 'payment due', 'date due', 'due by', 'due on', 'pay by', 'payment date', 'faellig', 'fallig', 'faelligkeitsdatum', 'falligkeitsdatum', 'zahlbar bis',
      'zahlungsziel', 'date limite de paiement', 'date limite', 'echeance', 'date d echeance', 'a payer avant', 'fecha de vencimiento', 'vencimiento', 'fecha limite de pago',
      'vervaldatum', 'uiterste betaaldatum', 'scadenza', 'data scadenza',
      'termin platnosci', 'forfallsdato', 'forfaldsdato', 'forfallodatum', 'forfallodag', 'datum splatnosti', 'splatnost', 'erapaiva',
    ],
    kind: 'date',
  },
  {
    id: 'total',
    names: ['amount', 'total', 'total amount', 'grand total', 'amount due', 'amount total', 'total due', 'gross', 'gross amount', 'total gross', 'invoice total', 'balance due', 'amount payable', 'total incl tax', 'total price'],
    labels: [
      'grand total', 'bill amount', 'invoice amount', 'factuurbedrag', 'montant de la facture', 'importe de la factura', 'total amount due', 'total amount', 'amount due', 'total due', 'balance due', 'amount payable', 'invoice total', 'total for this invoice', 'total incl',
      'total including', 'total inc', 'rounded total', 'nett total', 'net total rm', 'total rm', 'total sales', 'total', 'gesamtbetrag', 'gesamtsumme', 'rechnungsbetrag',
      'endbetrag', 'bruttobetrag', 'zu zahlen', 'summe', 'gesamt', 'total eur', 'montant ttc', 'total ttc', 'net a payer', 'somme a payer', 'montant total', 'total facture',
      'montant du', 'importe total', 'total a pagar', 'total factura', 'importe', 'totaal', 'factuur totaal', 'te betalen', 'totaalbedrag', 'totale', 'totale fattura',
      'importo totale', 'razem', 'naleznosc ogolem', 'do zaplaty', 'razem do zaplaty', 'att betala', 'at betale', 'a betale', 'k uhrade', 'celkem k uhrade', 'yhteensa', 'amount',
      ...qualifiedTotals(INCLUDING_TAX),
    ],
    kind: 'money',
    fallback: { entity: 'money', strategy: 'largest', confidence: 0.4 },
  },
  {
    id: 'subtotal',
    names: ['subtotal', 'sub total', 'amount untaxed', 'untaxed amount', 'net amount', 'net', 'total net', 'amount net', 'net total', 'total excl tax', 'total before tax', 'total excluding tax', 'total untaxed', 'amount excl tax'],
    labels: [
      'subtotal', 'sub total', 'net amount', 'total net', 'net total', 'amount excl', 'excl vat', 'excluding vat', 'excl tax', 'total excl', 'total before tax', 'untaxed amount',
      'zwischensumme', 'nettobetrag', 'netto', 'summe netto', 'gesamt netto', 'total ht', 'montant ht', 'montant eur ht', 'sous total', 'total hors taxes', 'hors taxes', 'ht',
      'base imponible', 'importe neto', 'subtotaal', 'exclusief btw', 'excl btw', 'totaal excl', 'grondslag', 'imponibile', 'netto razem', 'wartosc netto', 'razem netto',
      'zaklad dane', 'exkl moms', 'summa exkl moms', 'veroton hinta',
      ...qualifiedTotals(EXCLUDING_TAX),
    ],
    kind: 'money',
  },
  {
    id: 'tax_amount',
    names: ['tax', 'vat', 'tax amount', 'vat amount', 'amount tax', 'total tax', 'sales tax', 'gst', 'gst amount', 'sst', 'tax total', 'total vat', 'vat total'],
    labels: [
      'tax amount', 'vat amount', 'total tax', 'total vat', 'sales tax', 'gst amount', 'sst', 'gst', 'tax', 'vat', 'mwst betrag', 'mwst', 'mehrwertsteuer', 'umsatzsteuer', 'ust',
      'montant tva', 'total tva', 'tva', 'importe iva', 'cuota iva', 'iva', 'btw bedrag', 'btw', 'kwota vat', 'podatek vat', 'moms', 'dph', 'alv',
    ],
    kind: 'money',
  },
  {
    id: 'currency',
    names: ['currency', 'currency code', 'curr', 'currency symbol'],
    labels: ['currency', 'waehrung', 'wahrung', 'devise', 'moneda', 'divisa', 'valuta'],
    kind: 'currency',
    fallback: { strategy: 'dominant_currency', confidence: 0.85 },
  },
  {
    id: 'vendor',
    names: ['issuer', 'vendor', 'vendor name', 'supplier', 'supplier name', 'seller', 'seller name', 'company', 'company name', 'merchant', 'merchant name', 'store', 'store name', 'shop', 'biller', 'from', 'partner name', 'business name', 'sender'],
    labels: ['vendor', 'supplier', 'seller', 'sold by', 'issued by', 'from', 'merchant', 'account holder', 'account name', 'beneficiary', 'payee', 'kontoinhaber', 'titulaire du compte', 'beneficiaire', 'titular de la cuenta', 'begunstigde', 'rekeninghouder', 'lieferant', 'verkaeufer', 'verkaufer', 'fournisseur', 'vendeur', 'proveedor', 'vendedor', 'emisor', 'leverancier', 'fornitore', 'sprzedawca'],
    kind: 'text',
    fallback: { strategy: 'vendor', confidence: 0.5 },
  },
  {
    id: 'customer',
    names: ['customer', 'customer name', 'buyer', 'client', 'client name', 'bill to', 'billed to', 'recipient', 'partner', 'sold to', 'ship to'],
    labels: ['bill to', 'billed to', 'sold to', 'invoice to', 'customer', 'client', 'buyer', 'ship to', 'attn', 'rechnungsempfaenger', 'rechnungsempfanger', 'kunde', 'facture a', 'client', 'cliente', 'facturar a', 'klant', 'factuuradres', 'nabywca', 'odbiorca', 'kupujacy', 'odberatel', 'kund'],
    kind: 'text',
  },
  {
    id: 'address',
    names: ['address', 'vendor address', 'company address', 'store address', 'supplier address', 'street', 'seller address', 'business address'],
    labels: ['address', 'adresse', 'anschrift', 'direccion', 'adres', 'indirizzo', 'adres'],
    kind: 'text',
  },
  {
    id: 'tax_id',
    names: ['vat', 'vat id', 'vat number', 'vat no', 'tax id', 'tax number', 'vat reg no', 'vat registration', 'gstin', 'gst no', 'ust id', 'vat id number', 'tva', 'nif', 'cif', 'static vat', 'tin', 'tax registration'],
    labels: [
      'vat id', 'vat number', 'vat no', 'vat reg no', 'vat registration number', 'vat reg', 'tax id', 'tax no', 'tin', 'gstin', 'gst no', 'gst reg no', 'vat', 'ust idnr', 'ust id',
      'ustid', 'umsatzsteuer id', 'ust idnr', 'steuernummer', 'n tva', 'tva intracommunautaire', 'n de tva intra communautaire', 'n de tva', 'tva', 'nif', 'cif', 'btw nummer',
      'btw nr', 'btw', 'partita iva', 'p iva', 'iva', 'nip', 'uid',
      // National VAT labels: CZ, SK, LT, EE, LV, SI, HR, DK, SE, FI, PT, GR, HU, RU.
      'dic', 'ic dph', 'pvm kodas', 'pvm', 'kmkr', 'pvn', 'id za ddv', 'ddv', 'oib', 'cvr nr', 'cvr', 'momsnr', 'moms nr', 'momsreg nr', 'alv nro', 'alv',
      'nipc', 'afm', 'αφμ', 'adoszam', 'инн',
    ],
    kind: 'id',
    fallback: { entity: 'tax_id', strategy: 'first', confidence: 0.65 },
  },
  {
    id: 'iban',
    names: ['iban', 'bank account', 'account iban'],
    // A bank account printed without the word IBAN: an account number that fails the IBAN check stays below the floor (coerce.ts).
    labels: ['iban', 'bank account', 'bank account no', 'bank account number', 'bankrekening', 'bankverbindung', 'compte bancaire', 'cuenta bancaria', 'conto bancario'],
    kind: 'id',
    fallback: { entity: 'iban', strategy: 'first', confidence: 0.8 },
  },
  {
    id: 'bic',
    names: ['bic', 'swift', 'swift code', 'bic swift', 'bic code'],
    labels: ['bic', 'swift', 'swift code', 'swift bic', 'bic swift'],
    kind: 'id',
  },
  {
    id: 'email',
    names: ['email', 'e mail', 'email address', 'partner email', 'contact email', 'mail'],
    labels: ['email', 'e mail', 'mail', 'courriel', 'correo', 'correo electronico'],
    kind: 'text',
    fallback: { entity: 'email', strategy: 'first', confidence: 0.6 },
  },
  {
    id: 'phone',
    names: ['phone', 'telephone', 'tel', 'phone number', 'mobile', 'fax', 'contact number'],
    labels: ['phone', 'telephone', 'tel', 'telefon', 'telefono', 'fon', 'mobile', 'mob', 'handy', 'gsm', 'hp'],
    kind: 'text',
    fallback: { entity: 'phone', strategy: 'first', confidence: 0.55 },
  },
  {
    id: 'website',
    names: ['website', 'web', 'url', 'homepage', 'partner website', 'web site', 'site'],
    labels: ['website', 'web', 'internet', 'im internet', 'site web', 'sitio web', 'www'],
    kind: 'text',
    fallback: { entity: 'url', strategy: 'first', confidence: 0.55 },
  },
  {
    id: 'order_number',
    names: ['order number', 'order id', 'order no', 'purchase order', 'po number', 'po', 'purchase order id', 'customer order number', 'order'],
    labels: [
      'order number', 'order no', 'order nr', 'order id', 'order #', 'purchase order', 'po number', 'po no', 'bestellnummer', 'bestell nr', 'auftragsnummer', 'auftrag nr',
      'numero de commande', 'n de commande', 'commande', 'numero de pedido', 'pedido', 'ordernummer', 'order', 'bestelnummer', 'numero ordine',
    ],
    kind: 'id',
    fallback: { entity: 'order_number', strategy: 'first', confidence: 0.6 },
  },
  {
    id: 'customer_number',
    names: ['customer number', 'customer id', 'customer no', 'client id', 'client number', 'account number', 'account id', 'customer ref', 'partner ref'],
    labels: ['customer number', 'customer no', 'customer id', 'client id', 'account number', 'account no', 'kundennummer', 'kundennr', 'kunden nr', 'numero client', 'id client', 'n client', 'numero de cliente', 'klantnummer', 'codice cliente'],
    kind: 'id',
    fallback: { entity: 'customer_number', strategy: 'first', confidence: 0.6 },
  },
  {
    id: 'reference',
    names: ['reference', 'reference number', 'ref', 'payment reference', 'booking id', 'booking reference', 'transaction id'],
    labels: ['reference number', 'reference', 'ref no', 'ref', 'payment reference', 'booking id', 'booking reference', 'transaction id', 'referenz', 'verwendungszweck', 'referencia', 'referentie', 'kenmerk', 'riferimento'],
    vague: ['reference', 'ref', 'ref no', 'reference number', 'referenz', 'referencia', 'referentie', 'kenmerk', 'riferimento'],
    kind: 'id',
    fallback: { entity: 'reference_number', strategy: 'first', confidence: 0.55 },
  },
  {
    id: 'payment_method',
    names: ['payment method', 'payment mode', 'payment type', 'paid by', 'payment'],
    labels: ['payment method', 'payment mode', 'payment type', 'paid by', 'paid through', 'zahlungsart', 'zahlungsform', 'zahlweise', 'mode de paiement', 'moyen de paiement', 'reglement', 'forma de pago', 'metodo de pago', 'betaalmethode', 'betaalwijze', 'betaald met', 'pagamento'],
    kind: 'text',
  },
  {
    id: 'postal_code',
    names: ['postal code', 'zip', 'zip code', 'postcode', 'post code', 'partner zip', 'plz'],
    labels: ['postal code', 'zip code', 'zip', 'postcode', 'plz', 'code postal', 'codigo postal', 'cp'],
    kind: 'id',
    fallback: { entity: 'postal_code', strategy: 'first', confidence: 0.5 },
  },
  {
    id: 'tax_rate',
    names: ['tax rate', 'vat rate', 'tax percent', 'vat percent', 'line tax percent', 'taxpercent', 'tax %', 'vat %', 'rate'],
    labels: ['tax rate', 'vat rate', 'tax %', 'vat %', 'vat', 'tax', 'mwst', 'mwst %', 'ust', 'tva', 'taux tva', '% tva', 'iva', '% iva', 'btw', 'btw %', 'vat [%]'],
    kind: 'percent',
    fallback: { entity: 'percentage', strategy: 'first', confidence: 0.5 },
  },
];

/** Column concepts of line items (arrays of objects). */
export const COLUMN_CONCEPTS: Concept[] = [
  {
    id: 'description',
    names: ['description', 'desc', 'name', 'item', 'item name', 'product', 'product name', 'article', 'label', 'title', 'service', 'details', 'designation', 'line description'],
    labels: [
      'description', 'item description', 'item', 'product', 'article', 'service', 'details', 'particulars', 'name', 'artikel', 'beschreibung', 'bezeichnung', 'artikelbezeichnung',
      'leistung', 'produkt', 'designation', 'libelle', 'produit', 'descripcion', 'concepto', 'producto', 'articulo', 'omschrijving', 'artikel omschrijving', 'descrizione',
      'nazwa towaru', 'nazwa',
    ],
    kind: 'text',
  },
  {
    id: 'quantity',
    names: ['qty', 'quantity', 'count', 'units', 'amount units', 'hours', 'menge', 'pieces'],
    labels: ['qty', 'quantity', 'units', 'hours', 'pcs', 'menge', 'anzahl', 'stueck', 'stuck', 'quantite', 'qte', 'cantidad', 'cant', 'uds', 'aantal', 'hoeveelheid', 'quantita', 'ilosc'],
    kind: 'number',
  },
  {
    id: 'unit_price',
    names: ['unit price', 'price unit', 'price', 'rate', 'unit cost', 'price per unit', 'unit amount', 'price each'],
    labels: [
      'unit price', 'price per unit', 'unit cost', 'price', 'rate', 'each', 'einzelpreis', 'stueckpreis', 'stuckpreis', 'preis', 'vk preis', 'e preis', 'prix unitaire', 'prix unit',
      'pu', 'prix', 'precio unitario', 'precio', 'prijs per stuk', 'stukprijs', 'prijs', 'prezzo unitario', 'prezzo', 'cena',
    ],
    kind: 'money',
  },
  {
    id: 'line_total',
    names: ['amount', 'total', 'line total', 'price subtotal', 'subtotal', 'line amount', 'total price', 'net amount', 'value', 'price total'],
    labels: [
      'amount', 'line total', 'total', 'subtotal', 'total price', 'net amount', 'value', 'betrag', 'gesamtpreis', 'zeilenbetrag', 'gesamt', 'summe', 'montant', 'total ht',
      'montant ht', 'importe', 'total linea', 'bedrag', 'totaal', 'incl btw', 'importo', 'wartosc brutto', 'wartosc',
    ],
    kind: 'money',
  },
  {
    id: 'line_tax',
    names: ['tax rate', 'vat rate', 'tax percent', 'vat percent', 'line tax percent', 'taxpercent', 'tax', 'vat', 'vat %'],
    labels: ['vat %', 'tax %', 'vat rate', 'tax rate', 'vat', 'tax', 'taxes', 'mwst', 'ust', 'tva', 'iva', 'btw', '% tva', 'vat [%]', 'mwst %', 'ust %', 'steuer', 'taxe', 'taxes %', 'impuesto', 'impuestos'],
    kind: 'percent',
  },
  {
    id: 'discount',
    names: ['discount', 'disc', 'discount percent', 'discount rate', 'rebate', 'line discount'],
    labels: ['discount', 'discount %', 'disc', 'disc %', 'rebate', 'rabatt', 'rabatt %', 'nachlass', 'remise', 'remise %', 'descuento', 'dto', 'korting', 'sconto', 'rabat', 'rabaty'],
    kind: 'percent',
  },
  {
    id: 'item_code',
    names: ['code', 'sku', 'item code', 'product code', 'article number', 'item number', 'part number', 'ref'],
    labels: ['code', 'sku', 'item code', 'item no', 'product code', 'article no', 'art nr', 'artikelnummer', 'artikel nr', 'ref', 'reference', 'codigo', 'referentie', 'codice'],
    kind: 'id',
  },
  {
    id: 'position',
    names: ['pos', 'position', 'line', 'line number', 'no', 'index', 'lp'],
    labels: ['pos', 'position', 'line', 'no', '#', 'lp', 'nr'],
    kind: 'id',
  },
  {
    id: 'unit',
    names: ['uom', 'unit', 'unit of measure', 'units of measure'],
    labels: ['uom', 'unit', 'einheit', 'unite', 'unidad', 'eenheid', 'jm'],
    kind: 'text',
  },
];

/**
 * Running totals where an item list breaks across pages ("Carried forward 30.00" at a page's foot,
 * "Brought forward 30.00" at the next one's head, "Übertrag", "À reporter", "Suma y sigue",
 * "Riporto", and "Report" alone before its amount): no item, skipped like a subtotal, and the list
 * goes on after them. Tested on the row's text as printed and as label text ("c/f" is "c f").
 */
export const CARRIED_ROW = /^(?:(?:sub\s?)?total\s+)?(?:balance\s+)?(?:(?:carried|brought)\s*(?:forward|fwd|over)|[cb]\s?\/\s?f|[cb] f|[uü]e?bertrag|zwischen[uü]e?bertrag|(?:a|à)\s+reporter|report(?=\s*:|\s+[\d.,\s]+$)|suma\s+y\s+sigue|suma\s+anterior|riporto|a\s+riportare)(?![\p{L}\d])/iu;

/** Labels that end a list of line items (totals below the table). */
export const TOTAL_ROW = /^(?:sub\s?total|total|grand total|summe|gesamt|zwischensumme|total ht|total ttc|montant|totaal|subtotaal|razem|importe total|exclusief btw)\b/i;
