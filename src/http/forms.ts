// The text fields of the document and batch upload forms, validated like a JSON body (422 in the
// FastAPI shape, loc ["body", <field>]). An empty field counts as absent, as HTML forms send them.
import { Type } from 'typebox';
import type { JobSettings } from '../domain/documents/submit.service.js';
import { validatePageRange } from '../domain/documents/jobs.service.js';
import type { ValidationItem } from '../lib/errors.js';
import { validationError } from '../lib/errors.js';
import { inspectFields, inspectValue, unstorableText } from './input-guard.js';
import type { ReceivedForm } from './multipart.js';
import { StringEnum } from './schemas/common.js';
import { PROCESSING_MODES } from './schemas/documents.js';
import { compileBodyValidator, toValidationItems } from './validation.js';

const common = {
  template_id: Type.Optional(Type.String({ maxLength: 64 })),
  processing_mode: Type.Optional(StringEnum(PROCESSING_MODES)),
  page_range: Type.Optional(Type.String({ maxLength: 255 })),
  // A batch's field (decisions.md); a single upload takes it too, as the over-cap failure suggests it.
  page_cap_policy: Type.Optional(StringEnum(['fail', 'truncate'] as const)),
  destination_connection_id: Type.Optional(Type.String({ maxLength: 64 })),
};

// A field the form does not take is refused (`extra_forbidden`), as in a JSON body: a misspelt
// template_id must not upload a job that runs without its template.
const validateDocument = compileBodyValidator(Type.Object({ ...common, metadata: Type.Optional(Type.String({ maxLength: 65536 })) }, { additionalProperties: false }));
const validateBatch = compileBodyValidator(
  Type.Object(
    {
      ...common,
      name: Type.Optional(Type.String({ maxLength: 256 })),
      destination_config: Type.Optional(Type.String({ maxLength: 65536 })),
    },
    { additionalProperties: false },
  ),
);

/** What a batch's destination may be asked to do beyond the job results (decisions.md, connections). */
const validateDestinationConfig = compileBodyValidator(Type.Object({ include_original: Type.Optional(Type.Boolean()) }, { additionalProperties: false }));

/** Problems with a parsed destination_config, located under body.destination_config. */
function destinationConfigProblems(config: Record<string, unknown> | null, fields: Record<string, string>): ValidationItem[] {
  if (config === null) return [];
  if (fields.destination_connection_id === undefined) {
    return [{ loc: ['body', 'destination_config'], msg: 'destination_config applies to a destination: send destination_connection_id with it', type: 'value_error', input: fields.destination_config }];
  }
  if (validateDestinationConfig(config)) return [];
  return toValidationItems(validateDestinationConfig.errors ?? [], config, 'body').map((i) => ({ ...i, loc: ['body', 'destination_config', ...i.loc.slice(1)] }));
}

function present(fields: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v.trim() !== ''));
}

function jsonObject(value: string | undefined, field: string, items: ValidationItem[]): Record<string, unknown> | null {
  if (value === undefined) return null;
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const hostile = inspectValue(parsed, ['body', field]);
      if (!hostile) return parsed as Record<string, unknown>;
      items.push(hostile);
      return null;
    }
    items.push({ loc: ['body', field], msg: 'Input should be a valid dictionary', type: 'dict_type', input: value });
  } catch (err) {
    items.push({ loc: ['body', field], msg: 'Invalid JSON', type: 'json_invalid', input: value, ctx: { error: (err as Error).message } });
  }
  return null;
}

function check(validate: ReturnType<typeof compileBodyValidator>, fields: Record<string, string>, extra: ValidationItem[], files: ReceivedForm['files'] = []): void {
  const items = validate(fields) ? [] : toValidationItems(validate.errors ?? [], fields, 'body');
  items.push(...inspectFields(fields, 'body'));
  for (const file of files) {
    if (file.filename !== null && unstorableText(file.filename)) {
      items.push({ loc: ['body', file.field, 'filename'], msg: 'File name should not contain NUL characters or unpaired surrogates', type: 'string_unstorable' });
    }
  }
  items.push(...extra);
  if (fields.page_range !== undefined && !items.some((i) => i.loc[1] === 'page_range')) {
    try {
      validatePageRange(fields.page_range, ['body', 'page_range']);
    } catch (err) {
      items.push(...((err as { items?: ValidationItem[] }).items ?? []));
    }
  }
  if (items.length) throw validationError(items);
}

function settings(fields: Record<string, string>): JobSettings {
  return {
    page_cap_policy: (fields.page_cap_policy as JobSettings['page_cap_policy'] | undefined) ?? 'fail',
    processing_mode: (fields.processing_mode as JobSettings['processing_mode'] | undefined) ?? 'extraction',
    template_id: fields.template_id ?? null,
    page_range: fields.page_range?.trim() ?? null,
    destination_connection_id: fields.destination_connection_id ?? null,
  };
}

export function parseDocumentForm(form: ReceivedForm) {
  const fields = present(form.fields);
  const extra: ValidationItem[] = [];
  if (form.files.length === 0) extra.push({ loc: ['body', 'file'], msg: 'Field required', type: 'missing', input: null });
  if (form.files.length > 1) extra.push({ loc: ['body', 'file'], msg: 'Send exactly one file; use POST /v1/batches for several', type: 'value_error' });
  const metadata = jsonObject(fields.metadata, 'metadata', extra);
  check(validateDocument, fields, extra, form.files);
  return { file: form.files[0]!, settings: settings(fields), metadata: metadata ?? {} };
}

export const MAX_BATCH_FILES = 500;

export function parseBatchForm(form: ReceivedForm) {
  const fields = present(form.fields);
  const extra: ValidationItem[] = [];
  if (form.files.length === 0) extra.push({ loc: ['body', 'files'], msg: 'List should have at least 1 item after validation', type: 'too_short', input: null, ctx: { min_length: 1 } });
  const destinationConfig = jsonObject(fields.destination_config, 'destination_config', extra);
  extra.push(...destinationConfigProblems(destinationConfig, fields));
  check(validateBatch, fields, extra, form.files);
  return {
    files: form.files,
    name: fields.name ?? null,
    settings: settings(fields),
    destinationConfig,
  };
}
