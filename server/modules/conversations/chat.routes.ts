import { ChatMessageBodySchema, StartConversationBodySchema } from '@contract/call-runtime.js';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { AppDeps } from '../../platform/deps.js';
import { limitBody } from '../../platform/http/body-limit.js';
import { jsonBody, ok } from '../../platform/http/http.js';
import type { AppEnv } from '../../platform/http/types.js';
import { requireAuth } from '../auth/index.js';
import { callRuntime } from './call-runtime.js';
import { chatRow, endChat, prepareChatMessage, startChat } from './runtime.js';
import { parseJson } from './session.repo.js';

/**
 * /chat: Test LLM. `POST /` starts a chat with an agent (the saved one, or the editor's unsaved payload);
 * `POST /{chat_id}/message` answers the agent's reply as a `text/event-stream` of JSON `data:` lines
 * (delta, tool_call, error, done); closing that stream stops the reply (server/modules/conversations/runtime.ts
 * prepareChatMessage); `GET /{chat_id}` answers the transcript; `POST /{chat_id}/end` ends the chat now
 * (the tester closed it), idempotent.
 */
export function chatRoutes(deps: AppDeps) {
  const r = new Hono<AppEnv>();
  r.use('*', requireAuth(deps));
  r.use('*', limitBody(2 * 1024 * 1024, 'The agent is too large'));
  const caller = (c: { get(k: 'auth'): { companyId: string; accountId: string } }) => {
    const auth = c.get('auth');
    return { companyId: auth.companyId, accountId: auth.accountId };
  };

  r.post('/', async (c) => {
    const rt = callRuntime(deps);
    const body = await jsonBody(c, StartConversationBodySchema);
    return ok(c, { data: await startChat(deps, rt, caller(c), body) }, 201);
  });

  const transcriptOf = (row: Awaited<ReturnType<typeof chatRow>>) => ({
    data: { chat_id: row.id, ended: row.status !== 'ongoing', transcript: parseJson(row.transcript, []) },
  });

  r.get('/:id', async (c) => ok(c, transcriptOf(await chatRow(deps, caller(c), c.req.param('id')))));

  r.post('/:id/end', async (c) => ok(c, transcriptOf(await endChat(deps, callRuntime(deps), caller(c), c.req.param('id')))));

  r.post('/:id/message', async (c) => {
    const rt = callRuntime(deps);
    const { content } = await jsonBody(c, ChatMessageBodySchema);
    const turn = await prepareChatMessage(deps, rt, caller(c), c.req.param('id'));
    return streamSSE(c, async (stream) => {
      // the tester stopped the reply (or the connection dropped): the turn and its LLM request stop at once
      const stopped = new AbortController();
      stream.onAbort(() => stopped.abort());
      let chain = Promise.resolve();
      const emit = (e: unknown) => {
        chain = chain.then(() => stream.writeSSE({ data: JSON.stringify(e) }));
      };
      try {
        await turn.run(content, emit, stopped.signal);
      } catch (e) {
        deps.logger.error('chat turn failed', { reason: e instanceof Error ? e.message : String(e) });
        emit({ type: 'error', message: 'The reply failed on our side.', reason: 'error_unknown' });
        emit({ type: 'done', ended: false });
      }
      await chain;
    });
  });
  return r;
}
