/**
 * Runs an npm CLI script of the project (`npm run seed|admin -- <args>`, i.e. `tsx server/cli/<script>.ts`)
 * on the SQLite database of `dataDir`, the way an operator does. The e2e tests use it against the
 * running server's DATA_DIR (SQLite in WAL mode: the command and the server share the file):
 *
 *   await runCli('admin', ['grant-number-requests', '--company', user.email], inject('dataDir'));
 */
import { execFile } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

export function runCli(
  script: 'seed' | 'admin',
  args: string[],
  dataDir: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(root, 'node_modules/tsx/dist/cli.mjs'), path.join(root, `server/cli/${script}.ts`), ...args],
      { cwd: root, env },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}
