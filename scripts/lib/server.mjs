// Starting the built server like `npm start` on a free loopback port: shared by the e2e setup and the bench.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { root } from './stale.mjs';

/** A TCP port free on 127.0.0.1 right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Spawns `node scripts/start.mjs` with SKIP_BUILD=1 on a free port, a fresh temporary DATA_DIR (or the
 * given `dataDir`, e.g. one seeded beforehand; it is removed on stop all the same) and the embedded SQLite
 * database (DATABASE_URL and SMTP_URL unset). Resolves once /api/v1/health answers.
 */
export async function startServer({ timeoutMs = 30_000, env: extraEnv = {}, dataDir: givenDir } = {}) {
  const dataDir = givenDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'parley-run-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    SKIP_BUILD: '1',
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    PUBLIC_URL: baseUrl,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    // the e2e suite and the bench sign up many companies from this one loopback address
    SIGNUPS_PER_HOUR: '100000',
    ...extraEnv,
  };
  delete env.DATABASE_URL;
  delete env.SMTP_URL;
  let output = '';
  const startedAt = performance.now();
  const child = spawn(process.execPath, [path.join(root, 'scripts/start.mjs')], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);

  let stopping = false;
  const stop = async () => {
    stopping = true;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`The server exited with code ${child.exitCode} before answering:\n${output}`);
    }
    try {
      const res = await fetch(`${baseUrl}/api/v1/health`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`The server did not answer ${baseUrl}/api/v1/health within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const readyMs = performance.now() - startedAt;
  // a server that dies while in use says why (its last output), instead of every later test failing to connect
  child.once('exit', (code, signal) => {
    if (!stopping)
      process.stderr.write(
        `\nThe server at ${baseUrl} exited while in use (code ${code}, signal ${signal}). Its last output:\n${output}\n`,
      );
  });
  return { baseUrl, dataDir, readyMs, pid: child.pid, output: () => output, stop };
}
