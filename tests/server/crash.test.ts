import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SAMPLE_AGENT_PAYLOAD } from '../../server/modules/agents/sample-agent.js';
import { DB_KINDS } from './helpers.js';
import { numberBody } from './phone-helpers.js';
import { type Body, call, killed, killServersAfterEach, register, serverPlace, startServer, stopped } from './server-process.js';

/**
 * Crash safety: the real server (server/main.ts, as `npm start` runs it) takes a stream of concurrent
 * creates and updates, is killed with SIGKILL in the middle of it, and is started again on the same data.
 * Every request it answered 2xx must be there with its latest acknowledged value (or the value of a
 * request that was in flight at the kill: it may have committed without its answer reaching us), and the
 * SQLite file the kill left behind passes `PRAGMA integrity_check`. On PostgreSQL the server is killed and
 * the database stays up. See docs/reliability.md.
 */

killServersAfterEach();

/** workers sending at the same time */
const WORKERS = 8;
/** acknowledged writes before the kill (the kill lands while every worker has a request in flight) */
const ACKS_BEFORE_KILL = 120;

/** What the client knows of one row: the value last acknowledged, and the value of an unanswered write. */
interface Known {
  id: string;
  acked: string;
  inFlight: string | null;
}

/** An acknowledged agent create: its Idempotency-Key and body, to retry after the restart. */
interface KeyedCreate {
  key: string;
  name: string;
  id: string;
}

interface Ledger {
  agents: Known[];
  creates: KeyedCreate[];
  numbers: (Known & { phone: string })[];
  acks: number;
  /** creates sent but never answered (they may or may not exist after the crash) */
  unansweredCreates: number;
}

/**
 * One worker: create an agent, rename it twice, create a number, rename it, and again, until the server
 * stops answering. Every answered write goes into the ledger; a write in flight is remembered as such.
 */
async function worker(base: string, token: string, w: number, ledger: Ledger, onAck: () => void): Promise<void> {
  const acked = () => {
    ledger.acks++;
    onAck();
  };
  for (let i = 0; ; i++) {
    try {
      const name = `w${w}-agent-${i}`;
      ledger.unansweredCreates++;
      const key = `crash-${w}-${i}`;
      const created = await call(base, 'POST', '/agent', token, { ...SAMPLE_AGENT_PAYLOAD, name }, key);
      ledger.unansweredCreates--;
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const agent: Known = { id: created.body.data.agent._id, acked: name, inFlight: null };
      ledger.agents.push(agent);
      ledger.creates.push({ key, name, id: agent.id });
      acked();
      for (let v = 1; v <= 2; v++) {
        agent.inFlight = `${name}-v${v}`;
        const res = await call(base, 'PUT', `/agent/${agent.id}`, token, { agent_name: agent.inFlight });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        agent.acked = agent.inFlight;
        agent.inFlight = null;
        acked();
      }

      const phone = `+1312${String(w).padStart(2, '0')}${String(i).padStart(5, '0')}`;
      ledger.unansweredCreates++;
      const num = await call(base, 'POST', '/number/create', token, numberBody(phone, { nickname: `n${w}-${i}` }));
      ledger.unansweredCreates--;
      expect(num.status, JSON.stringify(num.body)).toBe(201);
      const number = { id: num.body.data.number._id as string, phone, acked: `n${w}-${i}`, inFlight: null as string | null };
      ledger.numbers.push(number);
      acked();
      number.inFlight = `n${w}-${i}-renamed`;
      const renamed = await call(base, 'PUT', `/number/${number.id}`, token, { nickname: number.inFlight });
      expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
      number.acked = number.inFlight;
      number.inFlight = null;
      acked();
    } catch (e) {
      // the server is gone: a failed fetch ends this worker; anything else is a real failure
      if (e instanceof TypeError && /fetch failed|terminated/.test(e.message)) return;
      throw e;
    }
  }
}

describe.each(DB_KINDS)('crash safety [%s]', (kind) => {
  it('SIGKILL in the middle of concurrent writes loses no acknowledged write and leaves a sound database', async () => {
    const { dataDir, database, env, remove } = await serverPlace(kind);
    try {
      const first = await startServer(env);
      const token = await register(first.url);
      const ledger: Ledger = { agents: [], creates: [], numbers: [], acks: 0, unansweredCreates: 0 };
      let kill: Promise<NodeJS.Signals | null> | undefined;
      const onAck = () => {
        if (ledger.acks >= ACKS_BEFORE_KILL && !kill) kill = killed(first.proc);
      };
      await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(first.url, token, w, ledger, onAck)));
      expect(await kill).toBe('SIGKILL');
      expect(ledger.acks).toBeGreaterThanOrEqual(ACKS_BEFORE_KILL);
      expect(ledger.agents.length).toBeGreaterThan(WORKERS);
      expect(ledger.numbers.length).toBeGreaterThan(0);

      if (kind === 'sqlite') {
        // the file exactly as the kill left it (opening it replays the write-ahead log, as a restart does)
        const file = new Database(path.join(dataDir, 'parley.sqlite'));
        try {
          expect(file.pragma('integrity_check', { simple: true })).toBe('ok');
          expect(file.pragma('foreign_key_check')).toEqual([]);
        } finally {
          file.close();
        }
      }

      const second = await startServer(env);
      // the access token is still good: sessions and the signing key live in the database and DATA_DIR
      for (const a of ledger.agents) {
        const res = await call(second.url, 'GET', `/agent/${a.id}`, token);
        expect(res.status, `agent ${a.acked}`).toBe(200);
        expect([a.acked, a.inFlight]).toContain(res.body.data.agent.name);
      }
      for (const n of ledger.numbers) {
        const res = await call(second.url, 'GET', `/number/${n.id}`, token);
        expect(res.status, `number ${n.phone}`).toBe(200);
        expect(res.body.data.number.phone).toBe(n.phone);
        expect([n.acked, n.inFlight]).toContain(res.body.data.number.nickname);
      }
      // nothing more exists than was sent: at most the unanswered creates came on top (+1: the sample agent)
      const agents = await call(second.url, 'GET', '/agent?limit=1', token);
      const total = agents.body.data.total as number;
      expect(total).toBeGreaterThanOrEqual(ledger.agents.length + 1);
      expect(total).toBeLessThanOrEqual(ledger.agents.length + 1 + ledger.unansweredCreates);
      // and the restarted server takes writes again
      expect((await call(second.url, 'POST', '/agent', token, { ...SAMPLE_AGENT_PAYLOAD, name: 'after the crash' })).status).toBe(
        201,
      );
      await stopped(second.proc);
      // the server wrote to its own schema, not to the shared database's default one
      if (database) expect(await database.tables()).toBeGreaterThan(10);

      if (kind === 'sqlite') {
        const file = new Database(path.join(dataDir, 'parley.sqlite'), { readonly: true });
        try {
          expect(file.pragma('integrity_check', { simple: true })).toBe('ok');
        } finally {
          file.close();
        }
      }
    } finally {
      await remove();
    }
  }, 120_000);

  it('SIGKILL during a recipients upload and a knowledge-base upload: the restarted server removes what they left', async () => {
    const { dataDir, env, query, remove } = await serverPlace(kind);
    const recipientsByUpload = async () =>
      new Map(
        (
          await query<{ upload_id: string; n: number }>(
            'select upload_id, count(*) as n from batch_recipients group by upload_id',
          )
        ).map((r) => [r.upload_id, Number(r.n)]),
      );
    try {
      const first = await startServer(env);
      const token = await register(first.url);
      const from = '+13125550100';
      expect((await call(first.url, 'POST', '/number/create', token, numberBody(from))).status).toBe(201);
      const batch = await call(
        first.url,
        'POST',
        '/batch-call',
        token,
        { name: 'Live', fromNumber: from, sendMode: 'now' },
        'b1',
      );
      expect(batch.status).toBe(201);
      const batchId = batch.body.batch._id as string;
      const phones = (n: number, start: number) =>
        Array.from({ length: n }, (_, i) => `+1415555${String(start + i).padStart(4, '0')}`);
      const listed = await fetch(`${first.url}/api/v1/batch-call/${batchId}/recipients`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/csv' },
        body: ['phone_number', ...phones(50, 0)].join('\n'),
      });
      expect(listed.status).toBe(200);
      const kb = new FormData();
      kb.set('knowledge_base_name', 'Live FAQ');
      kb.append('knowledge_base_files', new Blob(['# FAQ'], { type: 'text/markdown' }), 'faq.md');
      const liveKb = await call(first.url, 'POST', '/knowledge-base', token, kb);
      expect(liveKb.status).toBe(201);

      // two uploads that send part of their body and then wait forever
      const encoder = new TextEncoder();
      const stalling = (first: string) =>
        new ReadableStream<Uint8Array>({
          start(ctrl) {
            ctrl.enqueue(encoder.encode(first));
          },
        });
      const pending = [
        fetch(`${first.url}/api/v1/batch-call/${batchId}/recipients`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/csv' },
          body: stalling(`${['phone_number', ...phones(3000, 1000)].join('\n')}\n`),
          duplex: 'half',
        } as RequestInit).catch(() => null),
        fetch(`${first.url}/api/v1/knowledge-base`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'multipart/form-data; boundary=XyZ' },
          body: stalling(
            '--XyZ\r\nContent-Disposition: form-data; name="knowledge_base_name"\r\n\r\nKilled\r\n' +
              '--XyZ\r\nContent-Disposition: form-data; name="knowledge_base_files"; filename="half.md"\r\n' +
              `Content-Type: text/markdown\r\n\r\n# Half\n${'text '.repeat(20_000)}`,
          ),
          duplex: 'half',
        } as RequestInit).catch(() => null),
      ];
      const kbDirs = () => {
        const root = path.join(dataDir, 'knowledge-base');
        return fs.existsSync(root)
          ? fs.readdirSync(root).flatMap((c) => fs.readdirSync(path.join(root, c)).map((k) => path.join(root, c, k)))
          : [];
      };
      // the kill lands once the rows and the file are on their way in
      for (;;) {
        const uploads = await recipientsByUpload();
        if (uploads.size === 2 && [...uploads.values()].some((n) => n >= 2000) && kbDirs().length === 2) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(await killed(first.proc)).toBe('SIGKILL');
      await Promise.all(pending);
      const left = await recipientsByUpload();
      expect(left.size).toBe(2);
      expect(kbDirs()).toHaveLength(2);
      // a minute passes: the dead requests' leases run out (nobody renews them any more)
      await query('update pending_uploads set lease_until = $1', [new Date(Date.now() - 1000).toISOString()]);

      const second = await startServer(env);
      // the sweep runs in the background at start: wait for it (a functional wait, bounded so a server that
      // never sweeps fails here with what it left)
      for (let tries = 0; tries < 600; tries++) {
        if ((await recipientsByUpload()).size === 1 && kbDirs().length === 1) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect([...(await recipientsByUpload()).values()]).toEqual([50]);
      expect(kbDirs()).toHaveLength(1);
      // live data untouched
      const list = await call(second.url, 'GET', `/batch-call/${batchId}/recipients?limit=100`, token);
      expect(list.body.data.total).toBe(50);
      expect(list.body.data.recipients).toHaveLength(50);
      const kbs = await call(second.url, 'GET', '/knowledge-base', token);
      expect(kbs.body.data.knowledge_bases.map((k: Body) => k.knowledge_base_name)).toEqual(['Live FAQ']);
      expect(kbDirs()[0]).toContain(liveKb.body.data.knowledge_base.knowledge_base_id);
      expect(await query('select id from pending_uploads')).toEqual([]);
      await stopped(second.proc);
    } finally {
      await remove();
    }
  }, 120_000);
});
