/**
 * Outbound connections to addresses a tenant chose (a company's OpenAI-compatible Base URL; a
 * webhook URL) must not reach the server's own network: loopback, private and link-local ranges,
 * cloud metadata services and the like (SSRF).
 *
 * - `assertPublicUrl` checks a URL when it is saved: an http(s) URL whose host (an IP literal, or every
 *   address its name resolves to) is public. Decimal, octal and hex IPv4 forms (`http://2130706433/`,
 *   `http://0177.0.0.1/`) are normalised by the WHATWG URL parser before the check, so they are refused too.
 * - `guardedFetch` makes the actual request: the address it connects to is the one its own `lookup`
 *   checked (no window for DNS rebinding between a check and the connection), and redirects are never
 *   followed (a 3xx is answered as it is). `publicLookup` gives the same check to other clients (`ws`).
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net, { type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { concurrencyLimit } from '../jobs/concurrency.js';

export class UnsafeUrlError extends Error {
  constructor(
    message: string,
    /** why, for logs and tests: 'scheme' | 'credentials' | 'unresolvable' | the address class refused */
    readonly reason: string,
  ) {
    super(message);
    this.name = 'UnsafeUrlError';
  }
}

// ---------------------------------------------------------------------------------------------
// Address classes

type Range = readonly [prefix: string, bits: number, name: string];

/** IPv4 ranges that are not the public internet (RFC 6890 special-purpose registry and cloud metadata). */
const V4_BLOCKED: readonly Range[] = [
  ['0.0.0.0', 8, 'this network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignment'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
  // Azure's host endpoint (instance metadata and agent traffic) sits in a public range
  ['168.63.129.16', 32, 'metadata'],
];

/** IPv6 ranges that are not the public internet; embedded IPv4 forms are checked as IPv4 (below). */
const V6_BLOCKED: readonly Range[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['64:ff9b:1::', 48, 'local NAT64'],
  ['100::', 64, 'discard'],
  ['2001::', 23, 'IETF protocol assignment'],
  ['2001:db8::', 32, 'documentation'],
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

/** 16 bytes of an IPv6 address (with or without brackets, zone ids dropped), or null. */
function v6Bytes(address: string): Uint8Array | null {
  let s = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!net.isIPv6(s)) return null;
  const out = new Uint8Array(16);
  // a trailing dotted quad (::ffff:1.2.3.4) becomes two hextets
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (dotted) {
    const [a, b, c, d] = (dotted[1] as string).split('.').map(Number) as [number, number, number, number];
    s = `${s.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = s.includes('::') ? (s.split('::') as [string, string]) : [s, undefined];
  const headParts = head ? head.split(':') : [];
  const tailParts = tail ? tail.split(':') : [];
  const parts = [...headParts, ...Array(8 - headParts.length - tailParts.length).fill('0'), ...tailParts];
  parts.forEach((p, i) => {
    const n = Number.parseInt(p, 16);
    out[i * 2] = n >> 8;
    out[i * 2 + 1] = n & 0xff;
  });
  return out;
}

const v4Bytes = (address: string) => Uint8Array.from(address.split('.').map(Number));

function inRange(bytes: Uint8Array, prefix: Uint8Array, bits: number): boolean {
  for (let i = 0; i < bits; i++) {
    const mask = 0x80 >> (i % 8);
    if (((bytes[i >> 3] as number) & mask) !== ((prefix[i >> 3] as number) & mask)) return false;
  }
  return true;
}

const V4_TABLE = V4_BLOCKED.map(([p, bits, name]) => ({ prefix: v4Bytes(p), bits, name }));
const V6_TABLE = V6_BLOCKED.map(([p, bits, name]) => ({ prefix: v6Bytes(p) as Uint8Array, bits, name }));

/** The IPv4 address an IPv6 address carries (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64, 6to4). */
function embeddedV4(b: Uint8Array): Uint8Array | null {
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return b.slice(12, 16);
  if (zeros(0, 12)) return b.slice(12, 16);
  // 64:ff9b::/96 (well-known NAT64 prefix)
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return b.slice(12, 16);
  // 2002::/16 (6to4): the IPv4 address in bits 16-47
  if (b[0] === 0x20 && b[1] === 0x02) return b.slice(2, 6);
  return null;
}

/**
 * The class of a non-public address ('loopback', 'private', 'link-local', 'metadata', ...), or null when
 * `address` (an IPv4 or IPv6 literal) is a public internet address. Anything that is not an IP literal is
 * refused as 'invalid'.
 */
export function blockedAddressClass(address: string): string | null {
  if (net.isIPv4(address)) {
    const bytes = v4Bytes(address);
    return V4_TABLE.find((r) => inRange(bytes, r.prefix, r.bits))?.name ?? null;
  }
  const bytes = v6Bytes(address);
  if (!bytes) return 'invalid';
  const v6 = V6_TABLE.find((r) => inRange(bytes, r.prefix, r.bits))?.name;
  if (v6) return v6;
  const v4 = embeddedV4(bytes);
  return (v4 && V4_TABLE.find((r) => inRange(v4, r.prefix, r.bits))?.name) || null;
}

export const isPublicAddress = (address: string) => blockedAddressClass(address) === null;

// ---------------------------------------------------------------------------------------------
// URLs

export interface GuardOptions {
  /** operator's choice (ALLOW_PRIVATE_PROVIDER_URLS / ALLOW_PRIVATE_WEBHOOK_URLS): skip the address check */
  allowPrivate: boolean;
  /** name resolution (tests pass their own); default: dns.lookup with every address */
  lookup?: (hostname: string) => Promise<string[]>;
}

/** How long a caller waits for a name to resolve. */
export const LOOKUP_TIMEOUT_MS = 3000;

/**
 * dns.lookup runs getaddrinfo on libuv's small thread pool (shared with file and crypto work): names a
 * tenant chose resolve at most two at a time, a slot held until the lookup really ends, with a bounded
 * queue; the caller stops waiting after LOOKUP_TIMEOUT_MS. A slow or flooding name can neither stall the
 * pool nor hold a request open.
 */
const lookups = concurrencyLimit({
  max: 2,
  queueMax: 50,
  onFull: () => new UnsafeUrlError('Too many addresses are being checked right now. Try again in a moment.', 'busy'),
});

async function systemLookup(hostname: string): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error(`lookup of ${hostname} timed out`), { code: 'ETIMEOUT' })),
      LOOKUP_TIMEOUT_MS,
    );
  });
  try {
    const lookup = lookups.run(() => dns.promises.lookup(hostname, { all: true, verbatim: true }));
    lookup.catch(() => {});
    return (await Promise.race([lookup, timeout])).map((a) => a.address);
  } finally {
    clearTimeout(timer);
  }
}

const refusal = (host: string, kind: string, resolved = false) =>
  new UnsafeUrlError(
    `${host} ${resolved ? 'resolves to' : 'is'} ${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} address. Only public internet addresses are allowed here.`,
    kind.replace(/ /g, '-'),
  );

/** Parses an http(s) URL without credentials, or throws UnsafeUrlError with a message safe to show. */
export function parseHttpUrl(input: string | URL): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new UnsafeUrlError('Enter a valid URL starting with http:// or https://', 'invalid');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UnsafeUrlError('Only http:// and https:// URLs are allowed', 'scheme');
  if (url.username || url.password) throw new UnsafeUrlError('The URL must not contain a user name or password', 'credentials');
  return url;
}

/** Host of a parsed URL without IPv6 brackets. */
const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/**
 * Checks that `input` is an http(s) URL whose host is, or resolves only to, public addresses (unless
 * `allowPrivate`). Returns the parsed URL. Throws UnsafeUrlError with a message safe to show to the user.
 */
export async function assertPublicUrl(input: string | URL, options: GuardOptions): Promise<URL> {
  const url = parseHttpUrl(input);
  if (options.allowPrivate) return url;
  const host = hostOf(url);
  if (net.isIP(host)) {
    const kind = blockedAddressClass(host);
    if (kind) throw refusal(url.hostname, kind);
    return url;
  }
  let addresses: string[];
  try {
    addresses = await (options.lookup ?? systemLookup)(host);
  } catch (e) {
    if (e instanceof UnsafeUrlError) throw e;
    throw new UnsafeUrlError(`${url.hostname} could not be resolved`, 'unresolvable');
  }
  if (addresses.length === 0) throw new UnsafeUrlError(`${url.hostname} could not be resolved`, 'unresolvable');
  for (const address of addresses) {
    const kind = blockedAddressClass(address);
    if (kind) throw refusal(url.hostname, kind, true);
  }
  return url;
}

/**
 * A `lookup` for node's net/http/https/ws that resolves like dns.lookup and refuses (ENOTFOUND-like error)
 * when any resolved address is not public: the socket then connects only to an address that was checked.
 */
export function publicLookup(options: Pick<GuardOptions, 'lookup'> = {}): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    const resolve = options.lookup ?? systemLookup;
    resolve(hostname).then(
      (addresses) => {
        const bad = addresses.find((a) => !isPublicAddress(a));
        if (addresses.length === 0 || bad) {
          const err = Object.assign(
            bad
              ? refusal(hostname, blockedAddressClass(bad) as string, true)
              : new UnsafeUrlError(`${hostname} could not be resolved`, 'unresolvable'),
            {
              code: 'EADDRNOTAVAIL',
            },
          );
          callback(err, '', 4);
          return;
        }
        const all = addresses.map((address) => ({ address, family: net.isIPv6(address) ? 6 : 4 }));
        const wanted = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : 0;
        const usable = wanted ? all.filter((a) => a.family === wanted) : all;
        if (lookupOptions.all) callback(null, usable);
        else if (usable[0]) callback(null, usable[0].address, usable[0].family);
        else callback(Object.assign(new Error(`${hostname} has no IPv${wanted} address`), { code: 'ENOTFOUND' }), '', 4);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 4),
    );
  };
}

/**
 * Connection pools for guarded requests only: a kept-alive socket in them was opened through publicLookup,
 * so reusing one never reaches an address that was not checked (a socket of an unguarded request to the
 * same host could have been opened to a private address).
 */
const guardedAgents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

export interface GuardedRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  /** refuse non-public addresses (a tenant's URL) unless false */
  publicOnly: boolean;
  /** tests: name resolution */
  lookup?: GuardOptions['lookup'];
}

/**
 * One HTTP request with node's http(s) client, answered as a web `Response` whose body streams. With
 * `publicOnly`, an IP-literal host is checked before connecting and a name is resolved by `publicLookup`,
 * so the connection goes only to a checked public address. Redirects are never followed.
 */
export function guardedFetch(input: string | URL, init: GuardedRequestInit): Promise<Response> {
  let url: URL;
  try {
    url = parseHttpUrl(input);
  } catch (e) {
    return Promise.reject(e);
  }
  const host = hostOf(url);
  if (init.publicOnly && net.isIP(host)) {
    const kind = blockedAddressClass(host);
    if (kind) return Promise.reject(refusal(url.hostname, kind));
  }
  const client = url.protocol === 'https:' ? https : http;
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
  return new Promise<Response>((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: init.method ?? 'GET',
        headers,
        signal: init.signal,
        ...(init.publicOnly
          ? {
              agent: url.protocol === 'https:' ? guardedAgents.https : guardedAgents.http,
              ...(net.isIP(host) ? {} : { lookup: publicLookup({ lookup: init.lookup }) }),
            }
          : {}),
      },
      (res) => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (Array.isArray(value)) for (const v of value) responseHeaders.append(name, v);
          else if (value !== undefined) responseHeaders.set(name, value);
        }
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 599) {
          res.destroy();
          reject(new Error(`unexpected HTTP status ${status}`));
          return;
        }
        const nullBody = status === 204 || status === 304 || init.method === 'HEAD';
        if (nullBody) res.resume();
        resolve(
          new Response(nullBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
            status,
            statusText: res.statusMessage ?? '',
            headers: responseHeaders,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}
