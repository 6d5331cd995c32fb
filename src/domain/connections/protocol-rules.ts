// What each protocol's config and credentials must look like (decisions.md "Connections and
// endpoints"). One table drives validation; every problem is a 422 item located at the exact
// field (`body.config.bucket`, `body.credentials.secret_access_key`).
import { type TSchema, Type } from 'typebox';
import type { Direction, Protocol } from '../../db/connections-schema.js';
import { type ValidationItem, validationError } from '../../lib/errors.js';
import { compileBodyValidator, toValidationItems } from '../../lib/json-schema.js';

export const PROTOCOLS = ['s3', 'webhook', 'local', 'sftp'] as const;
export const DIRECTIONS = ['source', 'destination', 'both'] as const;
export const AFTER_ACTIONS = ['keep', 'move', 'delete'] as const;

const text = (options: Record<string, unknown> = {}) => Type.String({ minLength: 1, maxLength: 1024, ...options });
const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);

/** Fields every connection that can be a source may carry. */
const sourceFields = {
  poll_seconds: opt(Type.Integer({ minimum: 1, maximum: 86_400 })),
  settle_seconds: opt(Type.Integer({ minimum: 0, maximum: 3_600 })),
  template_id: opt(Type.String({ minLength: 1, maxLength: 64 })),
  processing_mode: opt(Type.Unsafe<string>({ type: 'string', enum: ['canonical', 'entities', 'extraction'] })),
  after: opt(Type.Unsafe<string>({ type: 'string', enum: [...AFTER_ACTIONS] })),
};

const SHA256_FINGERPRINT = '^(SHA256:)?[A-Za-z0-9+/]{43}=?$';

const RULES: Record<Protocol, { config: TSchema; credentials: TSchema; destinationOnly?: boolean }> = {
  s3: {
    config: Type.Object(
      {
        bucket: text({ maxLength: 63, pattern: '^[a-z0-9][a-z0-9.\\-]{1,61}[a-z0-9]$' }),
        prefix: opt(Type.String({ maxLength: 512 })),
        region: opt(text({ maxLength: 64 })),
        endpoint_url: opt(text({ pattern: '^https?://' })),
        force_path_style: opt(Type.Boolean()),
        ...sourceFields,
      },
      { additionalProperties: false },
    ),
    credentials: Type.Object({ access_key_id: text(), secret_access_key: text(), session_token: opt(text({ maxLength: 4096 })) }, { additionalProperties: false }),
  },
  webhook: {
    config: Type.Object(
      {
        url: text({ maxLength: 2048, pattern: '^https://' }),
        // Names are HTTP tokens, values hold no control character but tab (CR LF would split
        // the request): anything else could never be sent. A record's key pattern only binds
        // with additionalProperties false (it compiles to patternProperties).
        headers: opt(
          Type.Record(Type.String({ pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" }), Type.String({ maxLength: 4096, pattern: '^[^\\u0000-\\u0008\\u000a-\\u001f\\u007f]*$' }), {
            additionalProperties: false,
          }),
        ),
        timeout_seconds: opt(Type.Integer({ minimum: 1, maximum: 120 })),
      },
      { additionalProperties: false },
    ),
    credentials: Type.Object({ secret: text({ minLength: 16 }) }, { additionalProperties: false }),
    destinationOnly: true,
  },
  local: {
    config: Type.Object({ path: text(), ...sourceFields }, { additionalProperties: false }),
    credentials: Type.Object({}, { additionalProperties: false }),
  },
  sftp: {
    config: Type.Object(
      {
        host: text({ maxLength: 255 }),
        port: opt(Type.Integer({ minimum: 1, maximum: 65_535 })),
        path: text(),
        username: text({ maxLength: 255 }),
        host_key_sha256: opt(Type.String({ pattern: SHA256_FINGERPRINT })),
        ...sourceFields,
      },
      { additionalProperties: false },
    ),
    credentials: Type.Union([
      Type.Object({ password: text() }, { additionalProperties: false }),
      Type.Object({ private_key: text({ maxLength: 16_384 }), passphrase: opt(text()) }, { additionalProperties: false }),
    ]),
  },
};

const validators = new Map(
  Object.entries(RULES).map(([protocol, rule]) => [
    protocol,
    compileBodyValidator(Type.Object({ config: rule.config, credentials: rule.credentials })),
  ]),
);

export interface ConnectionShape {
  protocol: Protocol;
  direction: Direction;
  config: Record<string, unknown>;
  credentials: Record<string, unknown>;
}

/** 422 with one item per problem; `checkedCredentials` false when the body left them unchanged. */
export function validateConnectionShape(shape: ConnectionShape, checkedCredentials = true): void {
  const validate = validators.get(shape.protocol)!;
  const data = { config: shape.config, credentials: shape.credentials };
  const items: ValidationItem[] = [];
  if (!validate(data)) {
    items.push(...toValidationItems(validate.errors ?? [], data, 'body').filter((i) => checkedCredentials || i.loc[1] !== 'credentials'));
  }
  if (RULES[shape.protocol].destinationOnly && shape.direction !== 'destination') {
    items.push({ loc: ['body', 'direction'], msg: `A ${shape.protocol} connection can only be a destination`, type: 'value_error', input: shape.direction });
  }
  if (shape.direction === 'destination') {
    for (const key of Object.keys(sourceFields)) {
      if (key in shape.config) items.push({ loc: ['body', 'config', key], msg: 'Only a source (direction source or both) is polled; remove this field or change the direction', type: 'value_error', input: shape.config[key] });
    }
  }
  if (shape.config.template_id && shape.config.processing_mode && shape.config.processing_mode !== 'extraction') {
    items.push({ loc: ['body', 'config', 'template_id'], msg: 'A template only applies in processing_mode "extraction"', type: 'value_error', input: shape.config.template_id });
  }
  if (items.length) throw validationError(items);
}
