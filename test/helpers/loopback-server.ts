// A plain HTTP server on 127.0.0.1 that records every request and answers from a script: the
// other side of the wire for model SDKs in tests (it speaks their protocol; the SDK is real).
import http from 'node:http';

export interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  json: any;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface LoopbackServer {
  url: string;
  seen: Seen[];
  /** Answers each request; may look at what was sent. */
  handle(fn: (req: Seen) => Answer | Promise<Answer>): void;
  close(): Promise<void>;
}

export async function startLoopback(): Promise<LoopbackServer> {
  const seen: Seen[] = [];
  let handler: (req: Seen) => Answer | Promise<Answer> = () => ({ status: 500, body: { error: 'no handler' } });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      let json: unknown = null;
      try {
        json = body.length ? JSON.parse(body.toString('utf8')) : null;
      } catch {
        json = null;
      }
      const record: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, json };
      seen.push(record);
      const answer = await handler(record);
      const payload = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...(answer.headers ?? {}) });
      res.end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    seen,
    handle: (fn) => {
      handler = fn;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
