import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestNumber } from '../../server/modules/numbers/request.repo.js';
import { type AppDatabase, openDatabase } from '../../server/platform/db/index.js';
import { runCli } from '../cli-runner.js';

describe('npm run seed / npm run admin (SQLite in DATA_DIR)', () => {
  let dataDir: string;
  let db: AppDatabase;
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cli-'));
  });
  afterAll(async () => {
    await db?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('seeds a company with numbers, a free pool and calls, then grants a request', { timeout: 120_000 }, async () => {
    const seeded = await runCli(
      'seed',
      ['--company', 'Clinic@Example.test', '--calls', '300', '--numbers', '2', '--free', '3', '--seed', '5'],
      dataDir,
    );
    expect(seeded.code, seeded.stderr).toBe(0);
    expect(seeded.stderr).toMatch(/Created the account clinic@example\.test with the password \S{16}/);
    expect(seeded.stderr).toContain('Assigned 2 number(s)');
    expect(seeded.stderr).toContain('Added 3 free number(s)');
    expect(seeded.stderr).toMatch(/calls \[#+\] 100% {2}300\/300/);
    expect(seeded.stderr).toMatch(/Inserted 300 calls over 30 days/);

    db = await openDatabase({ sqliteFile: path.join(dataDir, 'parley.sqlite') });
    const account = await db.db
      .selectFrom('accounts')
      .selectAll()
      .where('email', '=', 'clinic@example.test')
      .executeTakeFirstOrThrow();
    const count = (table: 'calls' | 'phone_numbers', companyId: string | null) =>
      db.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('company_id', companyId === null ? 'is' : '=', companyId)
        .executeTakeFirstOrThrow()
        .then((r) => Number(r.n));
    expect(await count('calls', account.company_id)).toBe(300);
    expect(await count('phone_numbers', account.company_id)).toBe(2);
    expect(await count('phone_numbers', null)).toBe(3);

    const freeNumber = await db.db
      .selectFrom('phone_numbers')
      .select('phone_number')
      .where('company_id', 'is', null)
      .executeTakeFirstOrThrow();
    await requestNumber(db.db, {
      companyId: account.company_id,
      accountId: account.id,
      phone: freeNumber.phone_number,
      now: new Date(),
    });
    const listed = await runCli('admin', ['list-number-requests', '--company', 'clinic@example.test'], dataDir);
    expect(listed.stdout).toContain(`${freeNumber.phone_number}  clinic@example.test`);
    const granted = await runCli('admin', ['grant-number-requests', '--company', 'clinic@example.test'], dataDir);
    expect(granted.code, granted.stderr).toBe(0);
    expect(granted.stdout).toContain(`Granted ${freeNumber.phone_number} to clinic@example.test`);
    expect(await count('phone_numbers', account.company_id)).toBe(3);
    expect((await runCli('admin', ['grant-number-requests', '--all'], dataDir)).stdout).toContain('No pending number requests.');
  });

  it('refuses bad usage with exit code 2 and the usage text', { timeout: 60_000 }, async () => {
    for (const [script, args] of [
      ['admin', ['grant-number-requests', '--all', '--company', 'a@b.test']],
      ['seed', ['--company', 'a@b.test', '--calls', 'many']],
    ] as const) {
      const res = await runCli(script, [...args], dataDir);
      expect(res.code, `${script} ${args.join(' ')}`).toBe(2);
      expect(res.stderr).toContain(`Usage: npm run ${script}`);
    }
  });
});
