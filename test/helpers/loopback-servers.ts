// Servers on loopback that speak real wire protocols, for endpoint tests: an OpenAI-compatible
// chat-completions server, the remote OCR protocol (docs/ocr.md) and SMTP (smtp-server).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface LoopbackHttp {
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

type Handler = (req: Recorded) => { status: number; json: unknown };

export async function startHttpServer(handler: Handler): Promise<LoopbackHttp> {
  const requests: Recorded[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      requests.push(recorded);
      const { status, json } = handler(recorded);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** OpenAI chat completions: answers `ok`, with usage, when the bearer key matches `apiKey`. */
export function openAiHandler(apiKey: string): Handler {
  return (req) => {
    if (req.headers.authorization !== `Bearer ${apiKey}`) return { status: 401, json: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } } };
    if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) return { status: 404, json: { error: { message: 'not found' } } };
    const body = JSON.parse(req.body.toString('utf8')) as { model: string };
    return {
      status: 200,
      json: {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'length' }],
        usage: { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 },
      },
    };
  };
}

export interface LoopbackSmtp {
  port: number;
  mails: { from: string; to: string[]; raw: string }[];
  logins: { username: string; password: string }[];
  close(): Promise<void>;
}

/** An SMTP server that accepts one username/password (or none when `auth` is null) and keeps every mail. */
export async function startSmtpServer(auth: { username: string; password: string } | null): Promise<LoopbackSmtp> {
  const mails: LoopbackSmtp['mails'] = [];
  const logins: LoopbackSmtp['logins'] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: auth === null,
    allowInsecureAuth: true,
    logger: false,
    onAuth(a, _session, callback) {
      logins.push({ username: a.username ?? '', password: a.password ?? '' });
      if (auth && a.username === auth.username && a.password === auth.password) return callback(null, { user: a.username });
      callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { port, mails, logins, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
