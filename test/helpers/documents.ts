// Helpers for document tests: multipart uploads through the real API, and waiting for a job or
// batch to reach a state with a deadline (never a bare sleep).
import fs from 'node:fs';
import path from 'node:path';
import type { Harness, Reply } from './harness.js';

export const DATA = path.resolve(import.meta.dirname, '../../../shared/data');
export const data = (relative: string) => path.join(DATA, relative);

export const FILES = {
  invoice: data('invoice2data/files/camelot-example.pdf'),
  bol: data('invoice2data/files/camelot-bol100649863.pdf'),
  notes: data('pptx-python-pptx/files/prs-notes.pptx'),
  encrypted: data('pdf-realworld/pdfs/password-example.pdf'),
  empty: data('pdf-realworld/pdfs/empty.pdf'),
  zip: data('pdf-realworld/pdfs/issue-948.zip'),
  multipage: data('pdf-realworld/pdfs/issue-53-example.pdf'),
  long: data('pdf-realworld/pdfs/chelsea_pdta.pdf'),
};

export type Upload = { name: string; bytes: Uint8Array | Buffer } | string;

function blobOf(file: Upload): { blob: Blob; name: string } {
  if (typeof file === 'string') return { blob: new Blob([new Uint8Array(fs.readFileSync(file))]), name: path.basename(file) };
  return { blob: new Blob([new Uint8Array(file.bytes)]), name: file.name };
}

export async function postForm(h: Harness, url: string, token: string, files: { field: string; file: Upload }[], fields: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<Reply> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const { field, file } of files) {
    const { blob, name } = blobOf(file);
    form.append(field, blob, name);
  }
  const res = await fetch(`${h.baseUrl}${url}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, ...headers }, body: form });
  const text = await res.text();
  const body = (res.headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : text;
  return { status: res.status, body, headers: res.headers };
}

export function upload(h: Harness, token: string, file: Upload, fields: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<Reply> {
  return postForm(h, '/v1/documents', token, [{ field: 'file', file }], fields, headers);
}

export function uploadBatch(h: Harness, token: string, files: Upload[], fields: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<Reply> {
  return postForm(h, '/v1/batches', token, files.map((file) => ({ field: 'files', file })), fields, headers);
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null | false>, ms = 30_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value) return value;
    last = value;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what} (last: ${JSON.stringify(last)})`);
}

const TERMINAL = ['completed', 'needs_review', 'rejected', 'failed'];

/** Polls GET /v1/documents/{id} until the job is terminal (or in one of `statuses`). */
export async function waitForJob(h: Harness, token: string, jobId: string, statuses: string[] = TERMINAL, ms = 30_000): Promise<any> {
  let seen: any;
  return waitFor(
    `job ${jobId} to reach ${statuses.join('|')}`,
    async () => {
      const res = await h.request('GET', `/v1/documents/${jobId}`, { token });
      seen = res.body;
      return statuses.includes(res.body.status) ? res.body : undefined;
    },
    ms,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; job is ${JSON.stringify({ status: seen?.status, failure_code: seen?.failure_code, failure_message: seen?.failure_message })}`);
  });
}

/** A real template in the admin's tenant (jobs may only name templates that exist). */
export async function createTemplate(h: Harness, adminToken: string, name: string): Promise<string> {
  const res = await h.request('POST', '/v1/templates', {
    token: adminToken,
    body: { name, json_schema: { type: 'object', properties: { invoice_number: { type: 'string' }, total: { type: 'number' } } } },
  });
  if (res.status !== 201 && res.status !== 200) throw new Error(`template ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}
