// A real HTTPS webhook receiver on loopback with a self-signed certificate (trusted by Quire
// through QUIRE_EXTRA_CA_CERTS). It checks every signature the way docs/connections.md tells
// receivers to, records what arrived, and answers from a script (e.g. 500 once, then 200).
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';
import { verifyWebhook } from '../../src/connectors/webhook-signature.js';

export interface Received {
  deliveryId: string;
  event: string;
  signatureValid: boolean;
  body: any;
  answered: number;
  /** The request's headers as received. */
  headers: Record<string, string | string[] | undefined>;
}

export interface WebhookReceiver {
  url: string;
  /** PEM file of the receiver's certificate, for QUIRE_EXTRA_CA_CERTS. */
  caFile: string;
  received: Received[];
  /** Delivery ids as requests arrive (before the answer, which may be held by delayMs). */
  arrivals: string[];
  /** Status codes to answer, in order; once used up every request gets 200. */
  script: number[];
  /** Milliseconds to hold each request before answering. */
  delayMs: number;
  /** Answer 200 and then send the body a byte at a time, every 100 ms, without end. */
  trickle: boolean;
  /** `arrive <delivery id>` and `answer <delivery id>`, in the order they happened. */
  events: string[];
  /** Holds every request's answer from now until release() (after delayMs, if any). */
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(secret: string): Promise<WebhookReceiver> {
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    days: 1,
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 2, value: 'localhost' }] }],
  } as never);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-webhook-'));
  const caFile = path.join(dir, 'ca.pem');
  fs.writeFileSync(caFile, pems.cert);
  let gate: { promise: Promise<void>; open: () => void } | null = null;
  const receiver: WebhookReceiver = {
    url: '',
    caFile,
    received: [],
    arrivals: [],
    script: [],
    delayMs: 0,
    trickle: false,
    events: [],
    hold: () => {
      let open = () => undefined as void;
      const promise = new Promise<void>((resolve) => (open = resolve));
      gate = { promise, open };
    },
    release: () => {
      gate?.open();
      gate = null;
    },
    close: async () => undefined,
  };
  const server = https.createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    receiver.arrivals.push(String(req.headers['x-quire-delivery']));
    receiver.events.push(`arrive ${String(req.headers['x-quire-delivery'])}`);
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const signatureValid = verifyWebhook(secret, text, String(req.headers['x-quire-signature'] ?? ''));
      const answer = () => {
        const status = signatureValid ? (receiver.script.shift() ?? 200) : 401;
        receiver.events.push(`answer ${String(req.headers['x-quire-delivery'])}`);
        receiver.received.push({ deliveryId: String(req.headers['x-quire-delivery']), event: String(req.headers['x-quire-event']), signatureValid, body: JSON.parse(text), answered: status, headers: req.headers });
        if (receiver.trickle && status === 200) {
          res.writeHead(200, { 'content-type': 'text/plain' });
          const timer = setInterval(() => res.write('.'), 100);
          res.on('close', () => clearInterval(timer));
          return;
        }
        res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'thanks' : `status ${status} from the receiver`);
      };
      const held = gate?.promise;
      const afterGate = () => (held ? void held.then(answer) : answer());
      if (receiver.delayMs) setTimeout(afterGate, receiver.delayMs);
      else afterGate();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `https://127.0.0.1:${(server.address() as { port: number }).port}/hooks/quire`;
  receiver.close = async () => {
    receiver.release();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return receiver;
}
