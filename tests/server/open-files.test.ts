import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIN_OPEN_FILES, openFilesLimit, openFilesProblem, parseOpenFilesLimit } from '../../server/platform/log/open-files.js';
import { freePort } from './server-process.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            1024                 524288               files
Max locked memory         8388608              8388608              bytes
`;

describe('the open-files limit at start', () => {
  it('reads the soft limit of /proc/self/limits, unlimited as Infinity', () => {
    expect(parseOpenFilesLimit(LIMITS)).toBe(1024);
    expect(parseOpenFilesLimit(LIMITS.replace('1024     ', 'unlimited'))).toBe(Number.POSITIVE_INFINITY);
    expect(parseOpenFilesLimit('Max cpu time  unlimited  unlimited  seconds')).toBeUndefined();
    // this process: Node raised its soft limit to the hard one
    expect(openFilesLimit()).toBeGreaterThan(0);
  });

  it('is a problem below the minimum only, and never when the check is off or the limit unknown', () => {
    expect(MIN_OPEN_FILES).toBe(4096);
    expect(openFilesProblem(1024)).toMatch(/^This server may open only 1024 files at once \(ulimit -n\), fewer than the 4096/);
    expect(openFilesProblem(4096)).toBeUndefined();
    expect(openFilesProblem(Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(openFilesProblem(1024, 0)).toBeUndefined();
    expect(openFilesProblem(1024, 1000)).toBeUndefined();
    expect(openFilesProblem(undefined)).toBeUndefined();
  });

  /** server/main.ts under `ulimit -n <files>` (soft and hard): its exit code and output, or 'listening'. */
  async function startUnder(files: number, env: Record<string, string> = {}) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-nofile-'));
    const proc = spawn('sh', ['-c', `ulimit -n ${files} && exec "${process.execPath}" --import tsx server/main.ts`], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        NODE_ENV: 'production',
        DATA_DIR: dataDir,
        DEMO: 'off',
        LOG_LEVEL: 'error',
        PORT: String(await freePort()),
        HOST: '127.0.0.1',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const outcome = await new Promise<number | 'listening'>((resolve) => {
      const onData = (d: Buffer) => {
        output += d.toString();
        if (output.includes('Parley is running at')) resolve('listening');
      };
      proc.stdout.on('data', onData);
      proc.stderr.on('data', onData);
      proc.on('exit', (code) => resolve(code ?? -1));
    });
    if (proc.exitCode === null) {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
    return { outcome, output };
  }

  it('the server refuses to start with fewer open files than it needs, and says how to raise them', async () => {
    const { outcome, output } = await startUnder(1024);
    expect(outcome).toBe(1);
    expect(output.trim()).toBe(openFilesProblem(1024));
  }, 30_000);

  it('MIN_OPEN_FILES lowers the minimum (an operator who knows the server is small)', async () => {
    const { outcome, output } = await startUnder(1024, { MIN_OPEN_FILES: '512' });
    expect(outcome, output).toBe('listening');
  }, 30_000);
});
