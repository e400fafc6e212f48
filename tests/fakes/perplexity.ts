/**
 * A fake of Perplexity's Sonar API as web_search uses it, written from Perplexity's documents:
 * - Create Chat Completion, https://docs.perplexity.ai/api-reference/sonar-post, and OpenAI compatibility,
 *   https://docs.perplexity.ai/docs/sonar/openai-compatibility: POST /chat/completions with
 *   `Authorization: Bearer <API key>`, JSON body `model` (sonar, sonar-pro, sonar-reasoning,
 *   sonar-reasoning-pro, sonar-deep-research) and `messages` [{role system|user|assistant, content}] ending
 *   with the user's; answers the chat completion (`id`, `model`, `object: "chat.completion"`, `created`,
 *   `choices[0].message.content`, `finish_reason`, `usage`) with `citations` (URLs) and `search_results`
 *   ([{title, url, date}]).
 * - Errors as `{"error":{"message","type","code"}}`: 401 for a wrong or missing key, 400 invalid_model, 400
 *   for bad messages, 429 when rate limited (`throttleNext()`).
 */
import type http from 'node:http';
import { HttpFake, readBody, sendJson } from './listen.js';

export const PERPLEXITY_MODELS = ['sonar', 'sonar-pro', 'sonar-reasoning', 'sonar-reasoning-pro', 'sonar-deep-research'];

export interface PerplexityRequest {
  headers: http.IncomingHttpHeaders;
  path: string;
  body: unknown;
}

export interface PerplexityAnswer {
  content: string;
  results: { title: string; url: string; date?: string }[];
}

export class PerplexityFake extends HttpFake {
  readonly requests: PerplexityRequest[] = [];

  constructor(
    readonly apiKey = 'pplx-0123456789abcdef',
    /** the answer to every question */
    public answer: PerplexityAnswer = {
      content: 'The Eiffel Tower is 330 metres tall [1][2].',
      results: [
        { title: 'Eiffel Tower - Wikipedia', url: 'https://en.wikipedia.org/wiki/Eiffel_Tower', date: '2026-11-02' },
        { title: 'Official site', url: 'https://www.toureiffel.paris/en' },
      ],
    },
  ) {
    super();
  }

  private error(res: http.ServerResponse, status: number, type: string, message: string) {
    sendJson(res, status, { error: { message, type, code: status } });
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://fake');
    const text = await readBody(req);
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    this.requests.push({ headers: req.headers, path: url.pathname, body });
    if (req.headers.authorization !== `Bearer ${this.apiKey}`) return this.error(res, 401, 'invalid_api_key', 'Invalid API key');
    if (this.takeThrottle()) {
      return this.error(res, 429, 'rate_limit_exceeded', 'Rate limit exceeded. Please retry later.');
    }
    if (req.method !== 'POST' || url.pathname !== '/chat/completions') return this.error(res, 404, 'not_found', 'Not Found');
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json') || typeof body !== 'object' || !body)
      return this.error(res, 400, 'invalid_request', 'Request body must be JSON');
    const b = body as { model?: unknown; messages?: unknown };
    if (typeof b.model !== 'string' || !PERPLEXITY_MODELS.includes(b.model))
      return this.error(
        res,
        400,
        'invalid_model',
        `Invalid model '${String(b.model)}'. Permitted models can be found in the documentation at https://docs.perplexity.ai/guides/model-cards.`,
      );
    const messages = Array.isArray(b.messages) ? (b.messages as { role?: unknown; content?: unknown }[]) : [];
    const wellFormed = messages.every(
      (m) => ['system', 'user', 'assistant'].includes(String(m?.role)) && typeof m?.content === 'string' && m.content !== '',
    );
    if (messages.length === 0 || !wellFormed || messages.at(-1)?.role !== 'user')
      return this.error(res, 400, 'invalid_message', 'messages must be a non-empty list ending with a user message');
    const created = Math.floor(Date.now() / 1000);
    sendJson(res, 200, {
      id: `pplx-${this.requests.length}`,
      model: b.model,
      object: 'chat.completion',
      created,
      citations: this.answer.results.map((r) => r.url),
      search_results: this.answer.results,
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: this.answer.content } }],
      usage: { prompt_tokens: 12, completion_tokens: 20, total_tokens: 32, search_context_size: 'low' },
    });
  }
}
