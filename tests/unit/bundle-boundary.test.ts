import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * What the browser may load is what src/ imports. The password strength dictionaries (@zxcvbn-ts, several
 * megabytes) and the server's modules stay out of it: the strength check runs on the server only.
 */
const root = path.resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? sources(path.join(dir, e.name)) : /\.(ts|tsx)$/.test(e.name) ? [path.join(dir, e.name)] : [],
    );
}

describe('the browser bundle', () => {
  it('never imports zxcvbn nor a server module', () => {
    const offenders = sources(path.join(root, 'src')).filter((file) => {
      const text = fs.readFileSync(file, 'utf8');
      return /\b(from|import)\s*\(?\s*['"](@zxcvbn-ts\/|(\.\.\/)+server\/)/.test(text);
    });
    expect(offenders).toEqual([]);
  });

  it('holds no zxcvbn code when built', () => {
    const assets = path.join(root, 'dist/client/assets');
    if (!fs.existsSync(assets)) return;
    const js = fs.readdirSync(assets).filter((f) => f.endsWith('.js'));
    expect(js.length).toBeGreaterThan(0);
    const withZxcvbn = js.filter((f) => /zxcvbn|ZxcvbnFactory/.test(fs.readFileSync(path.join(assets, f), 'utf8')));
    expect(withZxcvbn).toEqual([]);
  });
});
