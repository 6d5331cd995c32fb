// The SSRF guard: every outbound call Quire makes on a user's behalf (model endpoints, webhooks,
// connection and endpoint tests, S3/SFTP hosts) goes to a public address only, unless the
// platform allows private networks (QUIRE_ALLOW_PRIVATE_NETWORK=1).
//
// Two checks, because either alone can be dodged: the URL's host is resolved and checked before
// the call (so the caller gets a clear error), and the socket's own DNS lookup is checked again
// at connect time (so a name that re-resolves to 127.0.0.1 between the two — DNS rebinding —
// still fails). Redirects are followed by hand, each hop checked the same way.
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, type Dispatcher, fetch as undiciFetch } from 'undici';
import { namesSecret } from './redact.js';

export class OutboundBlockedError extends Error {
  readonly code = 'outbound_blocked';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(`${host} resolves to ${address} (${range}); outbound calls reach public addresses only unless QUIRE_ALLOW_PRIVATE_NETWORK=1`);
    this.name = 'OutboundBlockedError';
  }
}

/** The ipaddr.js range name of an address; only `unicast` is public. */
export function addressRange(address: string): string {
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  // ipaddr.js calls the deprecated IPv4-compatible form (::7f00:1, "::127.0.0.1") unicast; it
  // embeds an IPv4 address in its low 32 bits and is never a public destination.
  if (range === 'unicast' && parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)) return 'ipv4Compatible';
  return range;
}

export function isPublicAddress(address: string): boolean {
  return net.isIP(address) !== 0 && addressRange(address) === 'unicast';
}

/** Parses `QUIRE_OUTBOUND_ALLOW`-style entries: single addresses or CIDR ranges. */
export function parseAllowList(entries: readonly string[]): Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> {
  return entries.map((entry) => {
    const trimmed = entry.trim();
    if (trimmed.includes('/')) return ipaddr.parseCIDR(trimmed);
    const address = ipaddr.parse(trimmed);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  });
}

function inAllowList(address: string, allowList: GuardOptions['allowList']): boolean {
  if (!allowList?.length) return false;
  const parsed = ipaddr.parse(address);
  return allowList.some(([range, bits]) => parsed.kind() === range.kind() && parsed.match(range, bits));
}

function checkAddress(host: string, address: string, options: GuardOptions): void {
  if (options.allowPrivateNetwork) return;
  if (net.isIP(address) === 0) throw new OutboundBlockedError(host, address, 'invalid');
  if (isPublicAddress(address) || inAllowList(address, options.allowList)) return;
  throw new OutboundBlockedError(host, address, addressRange(address));
}

/** Strips the brackets of an IPv6 URL host. */
function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

export interface GuardOptions {
  /** QUIRE_ALLOW_PRIVATE_NETWORK: every address allowed. */
  allowPrivateNetwork: boolean;
  /** Private addresses allowed one by one (QUIRE_OUTBOUND_ALLOW, e.g. an in-house model server). */
  allowList?: ReturnType<typeof parseAllowList>;
}

/** Resolves `url`'s host and throws OutboundBlockedError when any address is not public. */
export async function assertOutboundAllowed(url: string | URL, options: GuardOptions): Promise<void> {
  const target = typeof url === 'string' ? new URL(url) : url;
  const host = bareHost(target.hostname);
  if (options.allowPrivateNetwork) return;
  if (net.isIP(host)) return checkAddress(host, host, options);
  const addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
  for (const { address } of addresses) checkAddress(host, address, options);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http(s).Agent, net/tls.connect and undici that refuses non-public answers.
 * Hand it to any client that opens its own sockets (the AWS SDK's NodeHttpHandler, ssh2).
 */
export function guardedLookup(options: GuardOptions) {
  return (hostname: string, lookupOptions: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...lookupOptions, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as dns.LookupAddress[];
      try {
        for (const { address } of list) checkAddress(hostname, address, options);
      } catch (blocked) {
        return callback(blocked as NodeJS.ErrnoException, '', 0);
      }
      if (lookupOptions.all) return callback(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

/** An undici dispatcher whose every connection passes the guard. */
export function guardedDispatcher(options: GuardOptions & { connectTimeoutMs?: number }): Dispatcher {
  return new Agent({ connect: { lookup: guardedLookup(options), timeout: options.connectTimeoutMs ?? 10_000 } });
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface GuardedFetchInit extends RequestInit {
  maxRedirects?: number;
}

/**
 * `fetch` through the guard, following up to `maxRedirects` redirects by hand so that every hop
 * is checked. Fetch-compatible, so SDKs that accept a `fetch` option (openai, anthropic) can use it.
 */
export function createGuardedFetch(options: GuardOptions): (input: string | URL | Request, init?: GuardedFetchInit) => Promise<Response> {
  const dispatcher = guardedDispatcher(options);
  return async (input, init = {}) => {
    const { maxRedirects = 5, ...rest } = init;
    let url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    let request: RequestInit = typeof input === 'string' || input instanceof URL ? rest : { method: input.method, headers: input.headers, body: input.body, ...rest };
    for (let hop = 0; ; hop++) {
      await assertOutboundAllowed(url, options);
      // undici's own fetch: the dispatcher option is its API, and Node's global fetch would need a matching undici version.
      const response = (await undiciFetch(url, { ...(request as object), redirect: 'manual', dispatcher } as never)) as unknown as Response;
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || !location) return response;
      if (hop >= maxRedirects) throw new Error(`more than ${maxRedirects} redirects from ${url.origin}`);
      await response.body?.cancel();
      const next = new URL(location, url);
      // Credentials go to the origin they were configured for, never to where it redirects
      // (the Fetch standard drops Authorization the same way); SDKs name theirs x-api-key,
      // api-key, x-goog-api-key…, so every header that names a secret is dropped.
      if (next.origin !== url.origin) request = { ...request, headers: withoutSecretHeaders(request.headers) };
      url = next;
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && request.method && request.method !== 'GET' && request.method !== 'HEAD')) {
        request = { ...request, method: 'GET', body: undefined };
      }
    }
  };
}

const CREDENTIAL_HEADERS = new Set(['cookie', 'proxy-authorization']);

function withoutSecretHeaders(headers: RequestInit['headers']): Headers {
  const kept = new Headers(headers as never);
  for (const name of [...kept.keys()]) if (CREDENTIAL_HEADERS.has(name) || namesSecret(name)) kept.delete(name);
  return kept;
}

/** The guard as configured for this process. An entry that is not an address or CIDR is a startup error. */
export function guardOptionsFromConfig(config: { allowPrivateNetwork: boolean; outboundAllow: readonly string[] }): GuardOptions {
  try {
    return { allowPrivateNetwork: config.allowPrivateNetwork, allowList: parseAllowList(config.outboundAllow) };
  } catch {
    throw new Error(`QUIRE_OUTBOUND_ALLOW must list IP addresses or CIDR ranges, got "${config.outboundAllow.join(',')}"`);
  }
}
