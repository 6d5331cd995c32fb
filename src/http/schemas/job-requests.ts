// Request schemas of the job, batch and review operations that interface.md gives in full.
import { Type } from 'typebox';
import { FreeObject, Nullable, StringEnum } from './common.js';

const ProcessingMode = StringEnum(['canonical', 'entities', 'extraction'] as const);

export const JobReprocess = Type.Object({
  template_id: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
  clear_template: Type.Optional(Type.Boolean()),
  processing_mode: Type.Optional(Nullable(ProcessingMode)),
  page_range: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
});

export const ReviewOverride = Type.Object({ patch: FreeObject, note: Type.Optional(Nullable(Type.String())) });
export const ReviewApprove = Type.Object({ note: Type.Optional(Nullable(Type.String())) });
export const ReviewReprocess = Type.Object({ template_id: Type.Optional(Nullable(Type.String())) });

export const BatchForm = Type.Object({
  files: Nullable(Type.Array(Type.String({ format: 'binary' }))),
  name: Type.Optional(Type.String()),
  template_id: Type.Optional(Type.String()),
  processing_mode: Type.Optional(ProcessingMode),
  page_range: Type.Optional(Type.String({ maxLength: 255 })),
  page_cap_policy: Type.Optional(StringEnum(['fail', 'truncate'] as const)),
  destination_connection_id: Type.Optional(Type.String()),
  destination_config: Type.Optional(Type.String({ description: 'JSON text' })),
});

export const DocumentForm = Type.Object({
  file: Type.String({ format: 'binary' }),
  template_id: Type.Optional(Type.String()),
  processing_mode: Type.Optional(ProcessingMode),
  page_range: Type.Optional(Type.String({ maxLength: 255 })),
  page_cap_policy: Type.Optional(StringEnum(['fail', 'truncate'] as const)),
  destination_connection_id: Type.Optional(Type.String()),
  metadata: Type.Optional(Type.String({ description: 'JSON text' })),
});
