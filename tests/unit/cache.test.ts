import { describe, expect, it } from 'vitest';
import { CACHE_UNUSED_MS, createQueryCache } from '../../src/api/cache';

describe('query cache', () => {
  it('shares one request between concurrent loads of a key and stores the answer', async () => {
    const cache = createQueryCache();
    let calls = 0;
    const loader = async () => {
      calls += 1;
      return { n: calls };
    };
    const [a, b] = await Promise.all([cache.load('agents?page=1', loader), cache.load('agents?page=1', loader)]);
    expect(calls).toBe(1);
    expect(a).toBe(b);
    expect(cache.peek('agents?page=1')).toEqual({ n: 1 });
    // a later load asks again (no stale-time: refetch is the default)
    await cache.load('agents?page=1', loader);
    expect(calls).toBe(2);
  });

  it('invalidates by prefix and tells subscribers', async () => {
    const cache = createQueryCache();
    await cache.load('agents?page=1', async () => 1);
    await cache.load('agent:abc', async () => 2);
    await cache.load('numbers:assigned', async () => 3);
    const heard: string[] = [];
    const off = cache.subscribe((p) => heard.push(p));
    cache.invalidate('agent');
    expect(cache.peek('agents?page=1')).toBeUndefined();
    expect(cache.peek('agent:abc')).toBeUndefined();
    expect(cache.peek('numbers:assigned')).toBe(3);
    off();
    cache.invalidate('numbers');
    expect(heard).toEqual(['agent']);
  });

  it('does not store an answer that was in flight when its key was invalidated', async () => {
    const cache = createQueryCache();
    let release!: (v: string) => void;
    const pending = cache.load('agents', () => new Promise<string>((r) => (release = r)));
    cache.invalidate('agents');
    release('stale');
    expect(await pending).toBe('stale');
    expect(cache.peek('agents')).toBeUndefined();
  });

  it('drops entries unused for 60 s, and keeps failures out', async () => {
    let t = 0;
    const cache = createQueryCache(() => t);
    await cache.load('a', async () => 'x');
    t += CACHE_UNUSED_MS - 1;
    expect(cache.peek('a')).toBe('x');
    t += CACHE_UNUSED_MS + 1;
    expect(cache.peek('a')).toBeUndefined();
    await expect(cache.load('b', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(cache.peek('b')).toBeUndefined();
  });
});
