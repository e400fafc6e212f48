import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkAll, generate, unreadable } from '../../scripts/statecharts.js';
import { probeMachine } from '../fixtures/statecharts/probe.js';

/**
 * `npm run statecharts:check` (scripts/statecharts.ts --check, run by `npm test`) fails when a chart would not
 * read for a product owner: a transition without a description, an action without a name. These tests make
 * it fail on purpose: through `checkAll` (what --check decides with) and through the command itself.
 */
const root = path.resolve(import.meta.dirname, '../..');

const CARELESS_PROBLEMS = [
  'probe: probe.b --back--> probe.a has no description',
  'probe: probe.b --bump--> (stays, actions only) has an unnamed action (assign)',
];

const found = (careless: boolean) => ({
  name: 'probe',
  exportName: 'probe',
  file: 'tests/fixtures/statecharts/machines/probe.machine.ts',
  machine: probeMachine(careless),
});

describe('unreadable', () => {
  it('names a transition without a description and one with an unnamed action', () => {
    expect(unreadable([found(true)])).toEqual(CARELESS_PROBLEMS);
    expect(unreadable([found(false)])).toEqual([]);
  });
});

describe('checkAll (what --check decides with)', () => {
  it('fails on an unreadable chart even when the committed charts are up to date', async () => {
    const files = await generate([found(true)]);
    expect(checkAll(files, new Map(files), [found(true)])).toEqual({ stale: [], unreadable: CARELESS_PROBLEMS });
  });

  it('names each chart missing, out of date or left over', async () => {
    const files = await generate([found(false)]);
    const existing = new Map([
      ['README.md', 'edited by hand'],
      ['gone.md', '# gone'],
    ]);
    expect(checkAll(files, existing, [found(false)])).toEqual({
      stale: ['probe.md (missing)', 'README.md (out of date)', 'gone.md (no such machine any more)'],
      unreadable: [],
    });
  });
});

describe('npm run statecharts:check', () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-statecharts-'));
  afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

  /** The command on tests/fixtures/statecharts/machines, writing to a directory of its own. */
  const cli = (probe: 'careless' | 'readable', ...args: string[]) => {
    const run = spawnSync(
      process.execPath,
      [
        path.join(root, 'node_modules/tsx/dist/cli.mjs'),
        'scripts/statecharts.ts',
        '--machines',
        'tests/fixtures/statecharts/machines',
        '--out',
        path.join(out, probe),
        ...args,
      ],
      { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', STATECHARTS_PROBE: probe } },
    );
    return { code: run.status, stderr: run.stderr };
  };

  it('passes a readable machine whose charts are up to date', () => {
    expect(cli('readable')).toEqual({ code: 0, stderr: '' });
    expect(cli('readable', '--check')).toEqual({ code: 0, stderr: '' });
  }, 30_000);

  it('fails on a transition without a description and an inline assign, though the charts are up to date', () => {
    // writing the charts fails too (the chart does not read), but they are written
    expect(cli('careless').code).toBe(1);
    expect(fs.readdirSync(path.join(out, 'careless')).sort()).toEqual(['README.md', 'probe.md']);

    const checked = cli('careless', '--check');
    expect(checked.code).toBe(1);
    for (const problem of CARELESS_PROBLEMS) expect(checked.stderr).toContain(problem);
    expect(checked.stderr).not.toContain('stale');
  }, 30_000);
});
