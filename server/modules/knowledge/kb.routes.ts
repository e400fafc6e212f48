import fs from 'node:fs';
import { parseJson } from '@contract/json.js';
import {
  KB_FORM_FIELDS,
  KB_MESSAGES,
  KB_TEXTS_MAX,
  KB_URLS_MAX,
  KbAutoRefreshSchema,
  KbNameSchema,
  KbTextSchema,
  KbUrlSchema,
  KnowledgeBaseListQuerySchema,
} from '@contract/knowledge-base.js';
import { Hono } from 'hono';
import * as v from 'valibot';
import { isId, newId } from '../../platform/crypto/ids.js';
import type { AppDeps } from '../../platform/deps.js';
import { HttpError, ok, parseWith, query, refuseNul } from '../../platform/http/http.js';
import { idempotent } from '../../platform/http/idempotency.js';
import type { AppEnv } from '../../platform/http/types.js';
import { beginUpload } from '../../platform/uploads/pending-uploads.js';
import { requireAuth } from '../auth/index.js';
import {
  deleteKnowledgeBase,
  findKnowledgeBase,
  insertKnowledgeBase,
  kbDir,
  listKnowledgeBases,
  rowToKnowledgeBase,
  type StoredKbSource,
} from './kb.repo.js';
import { type KbFormParts, kbFormHash, readKnowledgeBaseForm } from './kb.upload.js';
import { knowledgeJobQueued } from './kb.worker.js';

const notFound = () => new HttpError(404, KB_MESSAGES.notFound);
const kbId = (id: string) => {
  if (!isId(id)) throw notFound();
  return id;
};

/** The text and URL sources of the form, validated; throws 400 with the first problem. */
function textSources(parts: KbFormParts): StoredKbSource[] {
  const texts = parts.fields.get(KB_FORM_FIELDS.texts) ?? [];
  const urls = parts.fields.get(KB_FORM_FIELDS.urls) ?? [];
  if (texts.length > KB_TEXTS_MAX) throw new HttpError(400, KB_MESSAGES.tooManyTexts);
  if (urls.length > KB_URLS_MAX) throw new HttpError(400, KB_MESSAGES.tooManyUrls);
  const out: StoredKbSource[] = [];
  texts.forEach((raw, i) => {
    let json: unknown;
    try {
      json = parseJson(raw);
    } catch {
      throw new HttpError(400, KB_MESSAGES.textInvalid);
    }
    refuseNul(json, KB_FORM_FIELDS.texts);
    const parsed = v.safeParse(KbTextSchema, json);
    if (!parsed.success) throw new HttpError(400, parsed.issues[0].message);
    const { title, text } = parsed.output;
    out.push({ kind: 'text', filename: title || `Text ${i + 1}`, type: 'text', content: text });
  });
  for (const raw of urls) {
    const url = parseWith(KbUrlSchema, raw, KB_FORM_FIELDS.urls);
    out.push({ kind: 'url', filename: url, type: 'url', file_url: url });
  }
  return out;
}

/** /knowledge-base: the company's knowledge bases (list, read, create from an upload, delete). */
export function knowledgeBaseRoutes(deps: AppDeps) {
  const db = deps.db.db;
  const r = new Hono<AppEnv>();
  r.use('*', requireAuth(deps));

  r.get('/', async (c) => {
    const q = query(c, KnowledgeBaseListQuerySchema);
    return ok(c, { data: await listKnowledgeBases(db, c.get('auth').companyId, q) });
  });

  r.get('/:id', async (c) => {
    const row = await findKnowledgeBase(db, c.get('auth').companyId, kbId(c.req.param('id')));
    if (!row) throw notFound();
    return ok(c, { data: { knowledge_base: rowToKnowledgeBase(row, true) } });
  });

  // the upload is streamed to disk, so the Idempotency-Key is claimed once the form has been read
  r.post('/', idempotent(deps, { hash: 'route' }), async (c) => {
    const { companyId, accountId } = c.get('auth');
    const now = deps.clock.now();
    const id = newId(now);
    const dir = kbDir(deps.config.dataDir, companyId, id);
    // marked before the directory exists: if this process dies mid-way, the sweep removes the directory
    const pending = await beginUpload(deps, 'knowledge-base', id, companyId);
    try {
      const parts = await readKnowledgeBaseForm(
        c.req.raw.body,
        { contentType: c.req.header('Content-Type') ?? '', contentLength: c.req.header('Content-Length') },
        dir,
      );
      const name = parseWith(KbNameSchema, parts.fields.get(KB_FORM_FIELDS.name)?.[0], KB_FORM_FIELDS.name);
      const enableAutoRefresh = parseWith(
        KbAutoRefreshSchema,
        parts.fields.get(KB_FORM_FIELDS.autoRefresh)?.[0],
        KB_FORM_FIELDS.autoRefresh,
      );
      const sources: StoredKbSource[] = [
        ...parts.files.map((f) => ({
          kind: 'file' as const,
          filename: f.filename,
          type: f.mime,
          file_size: f.size,
          file_kind: f.kind,
          stored: f.stored,
        })),
        ...textSources(parts),
      ];
      if (sources.length === 0) throw new HttpError(400, KB_MESSAGES.noSources);
      const idempotency = c.get('idempotency');
      const replay = await idempotency.claim(kbFormHash(parts));
      if (replay) {
        await fs.promises.rm(dir, { recursive: true, force: true });
        return replay;
      }
      let answer: Record<string, unknown> = {};
      await insertKnowledgeBase(db, { id, companyId, accountId, name, enableAutoRefresh, sources, now }, async (trx, row) => {
        await pending.settle(trx);
        answer = { success: true, msg: KB_MESSAGES.created, data: { knowledge_base: rowToKnowledgeBase(row) } };
        await idempotency.storeWith(trx, 201, answer);
      });
      knowledgeJobQueued(deps);
      deps.logger.info('knowledge base created', { companyId, knowledgeBaseId: id, sources: sources.length });
      return c.json(answer, 201);
    } catch (e) {
      // nothing of a refused upload stays behind
      await fs.promises.rm(dir, { recursive: true, force: true });
      throw e;
    } finally {
      await pending.end();
    }
  });

  r.delete('/:id', async (c) => {
    const { companyId } = c.get('auth');
    const id = kbId(c.req.param('id'));
    if (!(await deleteKnowledgeBase(db, companyId, id))) throw notFound();
    await fs.promises.rm(kbDir(deps.config.dataDir, companyId, id), { recursive: true, force: true });
    return ok(c, { msg: KB_MESSAGES.deleted, data: { knowledge_base_id: id } });
  });

  return r;
}
