// Opaque, sortable, prefixed identifiers (decisions.md "Names").
import { monotonicFactory } from 'ulidx';

const ulid = monotonicFactory();

export type IdPrefix =
  | 'job' | 'bat' | 'rev' | 'tpl' | 'drf' | 'fgj' | 'fgi' | 'con' | 'fep'
  | 'usr' | 'ses' | 'art' | 'aud' | 'key' | 'tok';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid().toLowerCase()}`;
}
