import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertPublicUrl,
  blockedAddressClass,
  guardedFetch,
  publicLookup,
  UnsafeUrlError,
} from '../../server/platform/net/net-guard.js';

const refused = async (url: string, options: Parameters<typeof assertPublicUrl>[1] = { allowPrivate: false }) => {
  try {
    await assertPublicUrl(url, options);
  } catch (e) {
    expect(e).toBeInstanceOf(UnsafeUrlError);
    return (e as UnsafeUrlError).reason;
  }
  return 'accepted';
};

describe('blockedAddressClass', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.20', 'private'],
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd00:ec2::254', 'unique-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.100.100.200', 'carrier-grade NAT'],
    ['0.0.0.0', 'this network'],
    ['0.1.2.3', 'this network'],
    ['::', 'unspecified'],
    ['224.0.0.251', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['168.63.129.16', 'metadata'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['2002:c0a8:0101::1', 'private'],
    ['[::1]', 'loopback'],
    ['fe80::1%eth0', 'link-local'],
    ['not-an-ip', 'invalid'],
  ])('%s is %s', (address, kind) => {
    expect(blockedAddressClass(address)).toBe(kind);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '172.15.255.255',
    '100.63.255.255',
    '100.128.0.1',
    '169.253.1.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
  ])('%s is public', (address) => {
    expect(blockedAddressClass(address)).toBeNull();
  });
});

describe('assertPublicUrl', () => {
  it.each([
    ['http://127.0.0.1/', 'loopback'],
    ['http://[::1]:8080/v1', 'loopback'],
    ['https://10.1.2.3/', 'private'],
    ['https://172.16.5.4/', 'private'],
    ['https://192.168.0.10/', 'private'],
    ['http://169.254.169.254/latest/meta-data/', 'link-local'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[::ffff:a9fe:a9fe]/', 'link-local'],
    ['http://[fd00::1]/', 'unique-local'],
    ['http://100.64.1.1/', 'carrier-grade-NAT'],
    ['http://0.0.0.0:3000/', 'this-network'],
    // decimal, octal and hex IPv4 forms: the URL parser turns them into 127.0.0.1
    ['http://2130706433/', 'loopback'],
    ['http://0177.0.0.1/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
    ['http://017700000001/', 'loopback'],
  ])('refuses %s (%s)', async (url, reason) => {
    expect(await refused(url)).toBe(reason);
  });

  it('refuses a name that resolves to loopback (localhost, through the system resolver)', async () => {
    expect(await refused('http://localhost:11434/')).toBe('loopback');
  });

  it('refuses a name when any of its addresses is private, and explains it', async () => {
    const lookup = async () => ['93.184.215.14', '10.0.0.7'];
    await expect(assertPublicUrl('https://llm.example.com/', { allowPrivate: false, lookup })).rejects.toThrow(
      'llm.example.com resolves to a private address. Only public internet addresses are allowed here.',
    );
  });

  it('refuses a name that does not resolve', async () => {
    const lookup = async () => {
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    };
    expect(await refused('https://nowhere.invalid/', { allowPrivate: false, lookup })).toBe('unresolvable');
  });

  it.each(['ftp://example.com/', 'file:///etc/passwd', 'gopher://example.com/', 'ws://example.com/', 'javascript:alert(1)'])(
    'refuses the scheme of %s',
    async (url) => {
      expect(await refused(url)).toBe('scheme');
    },
  );

  it('refuses credentials in the URL and what is not a URL', async () => {
    expect(await refused('https://user:pass@8.8.8.8/')).toBe('credentials');
    expect(await refused('not a url')).toBe('invalid');
  });

  it('accepts public addresses and names that resolve only to public addresses', async () => {
    expect(await refused('https://8.8.8.8/v1')).toBe('accepted');
    expect(await refused('https://[2606:4700:4700::1111]/')).toBe('accepted');
    const lookup = async () => ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'];
    expect(await refused('https://llm.example.com/', { allowPrivate: false, lookup })).toBe('accepted');
  });

  it('accepts private addresses when the operator allows them (scheme still checked)', async () => {
    expect(await refused('http://127.0.0.1:11434/', { allowPrivate: true })).toBe('accepted');
    expect(await refused('http://localhost/', { allowPrivate: true })).toBe('accepted');
    expect(await refused('file:///etc/passwd', { allowPrivate: true })).toBe('scheme');
  });
});

describe('publicLookup', () => {
  const run = (lookup: () => Promise<string[]>, options: { all?: boolean; family?: number } = {}) =>
    new Promise<{ err: NodeJS.ErrnoException | null; result: unknown }>((resolve) => {
      publicLookup({ lookup })('api.example.com', options as never, (err: NodeJS.ErrnoException | null, address: unknown) =>
        resolve({ err, result: address }),
      );
    });

  it('answers the checked public addresses, one or all', async () => {
    expect((await run(async () => ['93.184.215.14'])).result).toBe('93.184.215.14');
    expect((await run(async () => ['93.184.215.14', '2606:4700::1'], { all: true })).result).toEqual([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:4700::1', family: 6 },
    ]);
    expect((await run(async () => ['93.184.215.14', '2606:4700::1'], { family: 6 })).result).toBe('2606:4700::1');
  });

  it('fails the connection when a resolved address is not public', async () => {
    const { err } = await run(async () => ['93.184.215.14', '169.254.169.254'], { all: true });
    expect(err?.message).toContain('link-local');
  });
});

describe('guardedFetch', () => {
  let server: http.Server;
  let port: number;
  const requests: string[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      if (req.url === '/redirect') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
        return;
      }
      let body = '';
      req.on('data', (d) => {
        body += d;
      });
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ echo: body }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('refuses a private IP literal before connecting', async () => {
    const before = requests.length;
    await expect(guardedFetch(`http://127.0.0.1:${port}/x`, { publicOnly: true })).rejects.toThrow(/loopback/);
    expect(requests.length).toBe(before);
  });

  it('connects only to the address its own lookup checked (a rebinding name is refused at connect time)', async () => {
    let calls = 0;
    // public when the URL was saved, loopback when the request is made
    const lookup = async () => (calls++ === 0 ? ['93.184.215.14'] : ['127.0.0.1']);
    await assertPublicUrl(`http://rebind.example:${port}/`, { allowPrivate: false, lookup });
    const before = requests.length;
    await expect(guardedFetch(`http://rebind.example:${port}/x`, { publicOnly: true, lookup })).rejects.toThrow(/loopback/);
    expect(requests.length).toBe(before);
  });

  it('makes the request when private addresses are allowed, body and headers included', async () => {
    const res = await guardedFetch(`http://127.0.0.1:${port}/echo`, {
      publicOnly: false,
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ echo: 'hello' });
  });

  it('does not follow redirects', async () => {
    const res = await guardedFetch(`http://127.0.0.1:${port}/redirect`, { publicOnly: false });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('http://169.254.169.254/latest/meta-data/');
  });

  it('refuses non-http schemes', async () => {
    await expect(guardedFetch('file:///etc/passwd', { publicOnly: false })).rejects.toThrow(UnsafeUrlError);
  });
});
