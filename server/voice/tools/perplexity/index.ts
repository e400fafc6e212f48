/**
 * Web search (web_search): the model's question answered by Perplexity's Sonar chat completions with the
 * company's Perplexity key (`Authorization: Bearer`), POST /chat/completions
 * (https://docs.perplexity.ai/api-reference/sonar-post, https://docs.perplexity.ai/docs/sonar/openai-compatibility):
 * body model "sonar", messages [{role, content}]; answers OpenAI's chat completion shape
 * (`choices[0].message.content`) plus `citations` (URLs) and `search_results` ([{title, url, date}]); errors
 * as `{"error":{"message","type","code"}}`. The model reads the answer text and the numbered sources. The
 * base is PERPLEXITY_API_URL (server/voice/tools/tool-urls.ts), https://api.perplexity.ai when unset.
 */
import { failureOf, providerRequest, shortReason, stringArg } from '../provider-request.js';
import { TOOL_PROVIDER_URLS } from '../tool-urls.js';
import { type ToolEnv, ToolError, type ToolKind, type ToolOutcome, toolFailed } from '../types.js';

export const PERPLEXITY_NOT_CONNECTED = 'Perplexity is not connected on the Providers page';
export const PERPLEXITY_MODEL = 'sonar';
/** Sources listed for the model. */
export const MAX_CITATIONS = 8;
const LABEL = 'Perplexity';
const BASE = TOOL_PROVIDER_URLS.perplexity.default;
const SYSTEM = 'Answer briefly and factually, in a few sentences that can be read aloud on a phone call.';

function perplexityReason(json: unknown): string | undefined {
  const error = (json as { error?: { message?: unknown } | string } | undefined)?.error;
  if (typeof error === 'string') return shortReason(error);
  return shortReason(error?.message) ?? shortReason((json as { detail?: unknown } | undefined)?.detail);
}

/** The numbered sources: `search_results` (title and URL) when given, else the `citations` URLs. */
function sourcesOf(json: Record<string, unknown>): string[] {
  const results = Array.isArray(json.search_results) ? json.search_results : [];
  const fromResults = results
    .map((r: { title?: unknown; url?: unknown }) =>
      typeof r?.url === 'string' ? (typeof r.title === 'string' && r.title ? `${r.title.slice(0, 200)} - ${r.url}` : r.url) : '',
    )
    .filter(Boolean);
  if (fromResults.length > 0) return fromResults.slice(0, MAX_CITATIONS);
  const citations = Array.isArray(json.citations) ? json.citations : [];
  return citations.filter((c): c is string => typeof c === 'string').slice(0, MAX_CITATIONS);
}

async function search(args: Record<string, unknown>, env: ToolEnv): Promise<ToolOutcome> {
  const question = stringArg(args, 'query', 2000);
  if (!question) return toolFailed('query is needed: the question to search the web for');
  const access = env.keys.perplexity;
  if (!access?.apiKey) return toolFailed(PERPLEXITY_NOT_CONNECTED);
  try {
    const reply = await providerRequest(LABEL, access, BASE, {
      method: 'POST',
      path: '/chat/completions',
      body: {
        model: PERPLEXITY_MODEL,
        messages: [
          { role: 'system', content: SYSTEM },
          { role: 'user', content: question },
        ],
      },
      signal: env.signal,
    });
    if (reply.status !== 200) return toolFailed(failureOf(LABEL, reply.status, perplexityReason(reply.json)));
    const json = (reply.json ?? {}) as Record<string, unknown>;
    const choices = Array.isArray(json.choices) ? json.choices : [];
    const content = (choices[0] as { message?: { content?: unknown } } | undefined)?.message?.content;
    if (typeof content !== 'string' || !content.trim()) return toolFailed(`${LABEL} answered without text`);
    const sources = sourcesOf(json);
    const listed = sources.length > 0 ? `\n\nSources:\n${sources.map((s, i) => `[${i + 1}] ${s}`).join('\n')}` : '';
    return { ok: true, result: `${content.trim()}${listed}` };
  } catch (e) {
    if (e instanceof ToolError) return toolFailed(e.message);
    throw e;
  }
}

export const webSearch: ToolKind<'web_search'> = {
  type: 'web_search',
  prepare: async (fn) => {
    const description = 'Searches the web and answers a question with up-to-date information and numbered sources.';
    return [
      {
        spec: {
          name: fn.name,
          description: fn.description ? `${fn.description}\n${description}` : description,
          parameters: {
            type: 'object',
            properties: { query: { type: 'string', description: 'The question to answer from the web, in full' } },
            required: ['query'],
          },
        },
        fn,
        run: (args, env) => search(args, env),
      },
    ];
  },
};
