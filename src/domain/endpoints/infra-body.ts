// The PUT body of each infrastructure endpoint type (decisions.md "Infra endpoint bodies"),
// checked as a whole: the type's schema first, then the backend rules for vlm and judge.
import { Type } from 'typebox';
import type { InfraType } from '../../db/endpoints-schema.js';
import { type ValidationItem, validationError } from '../../lib/errors.js';
import { Nullable } from '../../lib/schema-types.js';
import { compileBodyValidator, toValidationItems } from '../../lib/json-schema.js';
import type { ModelBackend } from '../../models/endpoint-config.js';
import { checkModelEndpoint, httpUrlProblem } from './backends.js';
import { ModelPriceBody } from './price-schema.js';
import { type InfraSettings, MODEL_RETRIES_DEFAULT, MODEL_TIMEOUT_DEFAULT, OCR_TIMEOUT_DEFAULT } from './infra-settings.js';

const OptionalText = Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 2048 })));
const Timeout = Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 }));

export const ModelInfraBody = Type.Object(
  {
    backend: Type.String(),
    model: Type.String({ minLength: 1, maxLength: 256 }),
    base_url: OptionalText,
    aws_region: OptionalText,
    gcp_project: OptionalText,
    gcp_region: OptionalText,
    credentials: Type.Optional(Type.Object({}, { additionalProperties: true })),
    timeout_seconds: Timeout,
    max_retries: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
    price_per_mtok: Type.Optional(Nullable(ModelPriceBody)),
  },
  { additionalProperties: false },
);

export const OcrInfraBody = Type.Object(
  {
    base_url: Type.String({ minLength: 1, maxLength: 2048 }),
    credentials: Type.Optional(Type.Object({ api_key: Type.String({ minLength: 1 }) }, { additionalProperties: false })),
    timeout_seconds: Timeout,
  },
  { additionalProperties: false },
);

/** A host name or an IP address (IPv6 with or without brackets): no spaces, no scheme, no path. */
const SMTP_HOST = '^[A-Za-z0-9.:\\[\\]-]+$';
/**
 * A mailbox, bare (`ops@example.com`) or with a display name (`Quire <no-reply@example.com>`).
 * No control characters: a CR LF in it would add headers to every mail sent.
 */
const MAILBOX = '^(?:[^<>\\u0000-\\u001f\\u007f]*<[^\\s<>@]+@[^\\s<>@]+>|[^\\s<>@]+@[^\\s<>@]+)$';

export const SmtpInfraBody = Type.Object(
  {
    host: Type.String({ minLength: 1, maxLength: 255, pattern: SMTP_HOST }),
    port: Type.Integer({ minimum: 1, maximum: 65535 }),
    secure: Type.Optional(Type.Boolean()),
    from: Type.String({ minLength: 3, maxLength: 320, pattern: MAILBOX }),
    credentials: Type.Optional(Type.Object({ username: Type.String({ minLength: 1 }), password: Type.String({ minLength: 1 }) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

const validators = {
  vlm: compileBodyValidator(ModelInfraBody),
  judge: compileBodyValidator(ModelInfraBody),
  ocr: compileBodyValidator(OcrInfraBody),
  smtp: compileBodyValidator(SmtpInfraBody),
};

/** Credential values are never echoed back, not even in a validation error. */
function hideCredentialInputs(items: ValidationItem[]): ValidationItem[] {
  return items.map((item) => {
    if (!item.loc.includes('credentials')) return item;
    const { input: _hidden, ...rest } = item;
    return rest;
  });
}

export interface CheckedInfraBody<T extends InfraType> {
  settings: InfraSettings[T];
  credentials: Record<string, string>;
}

/**
 * Validates a PUT body for `type` and splits it into stored settings (defaults filled in) and the
 * credentials to seal. `kept` are the endpoint's current credentials, used when the body has none.
 */
export function checkInfraBody<T extends InfraType>(type: T, body: unknown, kept: Record<string, string> | null): CheckedInfraBody<T> {
  const validate = validators[type];
  if (!validate(body)) throw validationError(hideCredentialInputs(toValidationItems(validate.errors ?? [], body, 'body')));
  const b = body as Record<string, unknown>;
  const credentials = (b.credentials as Record<string, string> | undefined) ?? kept ?? {};
  const items: ValidationItem[] = [];
  let settings: unknown;
  if (type === 'vlm' || type === 'judge') {
    const text = (key: string) => (typeof b[key] === 'string' ? (b[key] as string) : null);
    items.push(...checkModelEndpoint({ backend: b.backend as string, model: text('model'), base_url: text('base_url'), aws_region: text('aws_region'), gcp_project: text('gcp_project'), gcp_region: text('gcp_region') }, credentials));
    settings = {
      backend: b.backend as ModelBackend,
      model: b.model as string,
      base_url: text('base_url'),
      aws_region: text('aws_region'),
      gcp_project: text('gcp_project'),
      gcp_region: text('gcp_region'),
      timeout_seconds: (b.timeout_seconds as number | undefined) ?? MODEL_TIMEOUT_DEFAULT,
      max_retries: (b.max_retries as number | undefined) ?? MODEL_RETRIES_DEFAULT,
      price_per_mtok: (b.price_per_mtok as InfraSettings['vlm']['price_per_mtok'] | undefined) ?? null,
    } satisfies InfraSettings['vlm'];
  } else if (type === 'ocr') {
    const problem = httpUrlProblem(b.base_url, ['body', 'base_url']);
    if (problem) items.push(problem);
    settings = { base_url: b.base_url as string, timeout_seconds: (b.timeout_seconds as number | undefined) ?? OCR_TIMEOUT_DEFAULT } satisfies InfraSettings['ocr'];
  } else {
    settings = { host: b.host as string, port: b.port as number, secure: (b.secure as boolean | undefined) ?? b.port === 465, from: b.from as string } satisfies InfraSettings['smtp'];
  }
  if (items.length) throw validationError(hideCredentialInputs(items));
  return { settings: settings as InfraSettings[T], credentials };
}
