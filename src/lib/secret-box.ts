// The secrets box: stored credentials (connections, model endpoints, SMTP) are sealed with
// AES-256-GCM and opened only where they are used. Nothing sealed is ever returned or logged.
//
// Keys come from QUIRE_SECRET_KEY, a comma-separated list: the first key seals, every key opens,
// so a rotation is "put the new key first, run `quire rotate-secret-key`, then drop the old one".
// When the variable is unset, a random key is generated once into `<data dir>/secret.key` (0600).
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const VERSION = 'v1';
const IV_BYTES = 12;
const KEY_FILE = 'secret.key';

export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

interface BoxKey {
  id: string;
  key: Buffer;
}

/** Any passphrase or random string becomes a 256-bit key; its id names it inside each ciphertext. */
function deriveKey(material: string): BoxKey {
  const key = Buffer.from(hkdfSync('sha256', material, 'quire-secret-box', 'aes-256-gcm', 32));
  const id = createHash('sha256').update(key).digest('hex').slice(0, 8);
  return { id, key };
}

/** Reads the generated key of a data dir, creating it (race-safe across processes) on first use. */
function dataDirKey(dataDir: string): string {
  const file = path.join(dataDir, KEY_FILE);
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const generated = randomBytes(32).toString('base64url');
  try {
    fs.writeFileSync(file, `${generated}\n`, { flag: 'wx', mode: 0o600 });
    return generated;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return fs.readFileSync(file, 'utf8').trim();
  }
}

export class SecretBox {
  private readonly keys: BoxKey[];

  /** `materials[0]` seals; all of them open. */
  constructor(materials: string[]) {
    const usable = materials.map((m) => m.trim()).filter((m) => m.length > 0);
    if (usable.length === 0) throw new SecretBoxError('the secrets box needs at least one key');
    this.keys = usable.map(deriveKey);
  }

  static fromConfig(config: { secretKey: string | null; dataDir: string }): SecretBox {
    const materials = config.secretKey ? config.secretKey.split(',') : [dataDirKey(config.dataDir)];
    return new SecretBox(materials);
  }

  /** The id of the key new ciphertexts are sealed with. */
  get primaryKeyId(): string {
    return this.keys[0]!.id;
  }

  /**
   * Seals text. `context` (for example `connection:<id>`) is bound in as associated data, so a
   * ciphertext copied onto another record does not open there.
   */
  seal(plaintext: string, context = ''): string {
    const { id, key } = this.keys[0]!;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [VERSION, id, iv.toString('base64url'), tag.toString('base64url'), body.toString('base64url')].join(':');
  }

  open(sealed: string, context = ''): string {
    const parts = sealed.split(':');
    if (parts.length !== 5 || parts[0] !== VERSION) throw new SecretBoxError('not a sealed value');
    const [, id, iv, tag, body] = parts as [string, string, string, string, string];
    const boxKey = this.keys.find((k) => k.id === id);
    if (!boxKey) throw new SecretBoxError(`sealed with key ${id}, which is not among the configured QUIRE_SECRET_KEY keys`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', boxKey.key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('sealed value failed authentication (tampered, or sealed for another record)');
    }
  }

  sealJson(value: unknown, context = ''): string {
    return this.seal(JSON.stringify(value), context);
  }

  openJson<T>(sealed: string, context = ''): T {
    return JSON.parse(this.open(sealed, context)) as T;
  }

  /** True when `sealed` was made with a key other than the primary one (rotation pending). */
  needsResealing(sealed: string): boolean {
    return sealed.split(':')[1] !== this.primaryKeyId;
  }
}

/** Credentials as responses show them: every key present, every value hidden. */
export function credentialKeysView(credentials: Record<string, unknown> | null | undefined): Record<string, 'set'> {
  return Object.fromEntries(Object.keys(credentials ?? {}).map((key) => [key, 'set' as const]));
}
