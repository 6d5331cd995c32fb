// Schema building blocks shared by every area. TypeBox schemas are the single source of
// validation, TypeScript types, OpenAPI and the response allow-list.
import { type TSchema, Type } from 'typebox';
import { Nullable, StringEnum } from '../../lib/schema-types.js';

export { Nullable, StringEnum };

/** RFC 3339 UTC with milliseconds on the wire; Date objects are serialised with toISOString. */
export const Timestamp = Type.Unsafe<Date | string>({ type: 'string', format: 'date-time' });
export const NullableTimestamp = Nullable(Timestamp);

export const FreeObject = Type.Object({}, { additionalProperties: true });

export const ErrorResponse = Type.Object(
  { detail: Type.String(), code: Type.String() },
  { $id: 'ErrorResponse', description: 'Every error except request validation' },
);

// interface.md gives `detail` as optional; Quire always sends it.
export const ValidationErrorResponse = Type.Object(
  {
    detail: Type.Optional(
      Type.Array(
      Type.Object({
        loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
        msg: Type.String(),
        type: Type.String(),
        input: Type.Optional(Type.Unknown()),
        ctx: Type.Optional(FreeObject),
        }),
      ),
    ),
  },
  { $id: 'HTTPValidationError', description: 'Request validation failure (422)' },
);

export function Page<T extends TSchema>(item: T) {
  return Type.Object({ items: Type.Array(item), next_cursor: Nullable(Type.String()) });
}

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
};

export const CreatedRange = {
  created_after: Type.Optional(Type.String({ format: 'date-time' })),
  created_before: Type.Optional(Type.String({ format: 'date-time' })),
};

export const Email = Type.String({ format: 'email', maxLength: 320 });
// decisions.md: passwords are at least 12 characters.
export const Password = Type.String({ minLength: 12, maxLength: 1024 });
export const Role = StringEnum(['platform_admin', 'admin', 'member'] as const);
export const TenantRole = StringEnum(['admin', 'member'] as const);

export const NoContent = Type.Null({ description: 'No content' });
