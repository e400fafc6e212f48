import { expect, it } from 'vitest';
import { KNOWLEDGE_CHUNKS_PER_TURN, searchKnowledge, searchTerms } from '../../../server/modules/knowledge/kb.search.js';
import { signUp } from '../auth-helpers.js';
import { describeEachDb, type TestApp } from '../helpers.js';
import { type CallServer, connectProvider, readEvents, sampleAgent, savePayload, useCallServer } from './harness.js';
import { InProcessProviders } from './in-process-providers.js';

/**
 * Knowledge search for a caller's turn (server/modules/knowledge/kb.search.ts, its SQL in kb.repo.ts):
 * full-text search over the chunks of the agent's bases, scoped to the company, and handed to the engine,
 * which has no SQL of its own (server/voice/engine/knowledge.ts).
 */

/** A knowledge base of the signed-in company holding `chunks` (written as the worker would store them). */
async function baseWith(t: TestApp, user: { token: string; companyId: string }, name: string, chunks: string[]) {
  const form = new FormData();
  form.set('knowledge_base_name', name);
  form.append('knowledge_base_texts', JSON.stringify({ title: name, text: chunks.join('\n') }));
  const res = await t.req('POST', '/api/v1/knowledge-base', { token: user.token, body: form });
  expect(res.status).toBe(201);
  const id = ((await res.json()) as { data: { knowledge_base: { knowledge_base_id: string } } }).data.knowledge_base
    .knowledge_base_id;
  await t.deps.db.db
    .insertInto('knowledge_base_chunks')
    .values(
      chunks.map((content, position) => ({
        knowledge_base_id: id,
        position,
        company_id: user.companyId,
        source_index: 0,
        content,
      })),
    )
    .execute();
  return id;
}

it('the search terms of a turn: words of 2 to 40 letters or digits, lower-cased, once each, at most 24', () => {
  expect(searchTerms('Is PARKING free? parking, a "b" OR c* | NEAR(x)')).toEqual(['is', 'parking', 'free', 'or', 'near']);
  expect(searchTerms(`${'x'.repeat(41)} ok`)).toEqual(['ok']);
  expect(searchTerms(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '))).toHaveLength(24);
  expect(searchTerms('? ! a')).toEqual([]);
});

describeEachDb('knowledge search', (kind) => {
  let p: InProcessProviders;
  const server = useCallServer(kind, () => {
    p = new InProcessProviders();
    return p.set();
  });

  async function twoCompanies(s: CallServer) {
    const other = await signUp(s.t);
    const mine = await baseWith(s.t, s.user, 'Clinic', [
      'Parking is free for patients in the north lot.',
      'The nursing team is in from ten to five.',
      'Visitors are welcome every afternoon.',
      'Parking for staff is behind the building.',
      'Bicycle parking is by the main door.',
      'Street parking is metered.',
    ]);
    const theirs = await baseWith(s.t, other, 'Other clinic', ['Parking costs ten dollars at the other clinic.']);
    return { mine, theirs };
  }

  it("finds the company's best matching chunks, at most three, never another company's", async () => {
    const s = server();
    const { mine, theirs } = await twoCompanies(s);
    const hits = await searchKnowledge(s.t.deps, s.user.companyId, [mine, theirs], 'Is PARKING free for patients?');
    expect(hits).toHaveLength(KNOWLEDGE_CHUNKS_PER_TURN);
    expect(hits[0]).toEqual({ knowledgeBaseId: mine, content: 'Parking is free for patients in the north lot.' });
    expect(hits.every((h) => h.knowledgeBaseId === mine && /parking/i.test(h.content))).toBe(true);
    // only the bases asked for, and words no chunk holds find nothing
    expect(await searchKnowledge(s.t.deps, s.user.companyId, [theirs], 'parking')).toEqual([]);
    expect(await searchKnowledge(s.t.deps, s.user.companyId, [mine], 'helicopter')).toEqual([]);
    expect(await searchKnowledge(s.t.deps, s.user.companyId, [], 'parking')).toEqual([]);
    // operators of either engine are plain words here
    const hostile = await searchKnowledge(s.t.deps, s.user.companyId, [mine], 'nursing" OR * NEAR( | & ! :team');
    expect(hostile[0]?.content).toBe('The nursing team is in from ten to five.');
  });

  it("a chat's reply is given the chunks of the agent's knowledge bases that match the message", async () => {
    const s = server();
    const { mine } = await twoCompanies(s);
    await connectProvider(s, 'openai');
    const agent = await sampleAgent(s);
    const editor = {
      ...(agent.editor as object),
      selectedKnowledgeBases: [
        {
          knowledge_base_id: mine,
          knowledge_base_name: 'Clinic',
          knowledge_base_sources: [],
          enable_auto_refresh: false,
          status: 'complete',
        },
      ],
    };
    const started = await s.t.req('POST', '/api/v1/chat', {
      token: s.user.token,
      body: { agent_id: agent._id, agent: savePayload(agent, { editor }) },
    });
    expect(started.status).toBe(201);
    const chatId = ((await started.json()) as { data: { chat_id: string } }).data.chat_id;
    p.replies = [{ text: 'Yes, it is free.' }];
    const reply = await s.t.req('POST', `/api/v1/chat/${chatId}/message`, {
      token: s.user.token,
      body: { content: 'Is parking free for patients?' },
    });
    expect((await readEvents(reply)).at(-1)).toEqual({ type: 'done', ended: false });
    const knowledge = p.llmRequests[0]?.messages.find(
      (m) => m.role === 'system' && typeof m.content === 'string' && m.content.startsWith('Knowledge that may help'),
    );
    expect(knowledge?.content).toContain('[1] Parking is free for patients in the north lot.');
    expect(knowledge?.content).not.toContain('the other clinic');
  });
});
