// The one ordered list of migrations. Statically imported so the compiled CLI needs no file scan.
import type { Migration } from 'kysely';
import * as foundation from './0001_foundation.js';
import * as policy from './0002_policy.js';
import * as documents from './0003_documents.js';
import * as templates from './0004_templates.js';
import * as reviews from './0005_reviews.js';

export const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_policy': policy,
  '0003_documents': documents,
  '0004_templates': templates,
  '0005_reviews': reviews,
};
