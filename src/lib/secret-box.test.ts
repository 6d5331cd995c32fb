import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { credentialKeysView, SecretBox, SecretBoxError } from './secret-box.js';

describe('SecretBox', () => {
  it('seals and opens, with a fresh IV each time and no plaintext in the ciphertext', () => {
    const box = new SecretBox(['correct horse battery staple']);
    const a = box.seal('sk-live-123', 'connection:1');
    const b = box.seal('sk-live-123', 'connection:1');
    expect(a).not.toBe(b);
    expect(a).not.toContain('sk-live');
    expect(box.open(a, 'connection:1')).toBe('sk-live-123');
    expect(box.openJson(box.sealJson({ api_key: 'x' }))).toEqual({ api_key: 'x' });
  });

  it('refuses a ciphertext moved to another record or tampered with', () => {
    const box = new SecretBox(['k']);
    const sealed = box.seal('secret', 'endpoint:a');
    expect(() => box.open(sealed, 'endpoint:b')).toThrow(SecretBoxError);
    const parts = sealed.split(':');
    parts[4] = Buffer.from('tampered').toString('base64url');
    expect(() => box.open(parts.join(':'), 'endpoint:a')).toThrow(/authentication/);
    expect(() => box.open('plain text')).toThrow(/not a sealed value/);
  });

  it('opens with any configured key and seals with the first (rotation)', () => {
    const old = new SecretBox(['old-key']);
    const sealedOld = old.seal('v');
    const rotated = new SecretBox(['new-key', 'old-key']);
    expect(rotated.open(sealedOld)).toBe('v');
    expect(rotated.needsResealing(sealedOld)).toBe(true);
    const resealed = rotated.seal(rotated.open(sealedOld));
    expect(rotated.needsResealing(resealed)).toBe(false);
    expect(() => new SecretBox(['new-key']).open(sealedOld)).toThrow(/not among the configured/);
  });

  it('generates one key into the data dir with mode 0600 and reuses it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-box-'));
    const first = SecretBox.fromConfig({ secretKey: null, dataDir: dir });
    const sealed = first.seal('kept');
    const stat = fs.statSync(path.join(dir, 'secret.key'));
    expect(stat.mode & 0o777).toBe(0o600);
    expect(SecretBox.fromConfig({ secretKey: null, dataDir: dir }).open(sealed)).toBe('kept');
    fs.rmSync(dir, { recursive: true });
  });

  it('shows credentials as keys only', () => {
    expect(credentialKeysView({ api_key: 'sk', secret: 'x' })).toEqual({ api_key: 'set', secret: 'set' });
    expect(credentialKeysView(null)).toEqual({});
  });
});
