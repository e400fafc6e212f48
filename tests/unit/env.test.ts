import { describe, expect, it } from 'vitest';
import { EnvError, parseEnv } from '../../server/env.js';

describe('parseEnv', () => {
  it('applies the documented defaults on an empty environment', () => {
    const env = parseEnv({});
    expect(env.PORT).toBe(3000);
    expect(env.DATA_DIR).toBe('./.data');
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.SMTP_URL).toBeUndefined();
    expect(env.PUBLIC_URL).toBeUndefined();
  });

  it('treats empty strings as unset', () => {
    const env = parseEnv({ PORT: '', DATABASE_URL: '' });
    expect(env.PORT).toBe(3000);
    expect(env.DATABASE_URL).toBeUndefined();
  });

  it('reads valid values', () => {
    const env = parseEnv({
      PORT: '8080',
      DATA_DIR: '/var/lib/parley',
      DATABASE_URL: 'postgres://u:p@db:5432/parley',
      PUBLIC_URL: 'https://parley.example',
      SMTP_URL: 'smtp://mail:25',
    });
    expect(env).toMatchObject({
      PORT: 8080,
      DATA_DIR: '/var/lib/parley',
      DATABASE_URL: 'postgres://u:p@db:5432/parley',
      PUBLIC_URL: 'https://parley.example',
      SMTP_URL: 'smtp://mail:25',
    });
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['DATABASE_URL', 'mysql://localhost/x'],
    ['PUBLIC_URL', 'not a url'],
    ['SMTP_URL', 'http://mail'],
  ])('a bad %s (%s) fails with one line naming the variable', (key, value) => {
    let error: unknown;
    try {
      parseEnv({ [key]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EnvError);
    const message = (error as Error).message;
    expect(message).toContain(key);
    expect(message).not.toContain('\n');
  });
});
