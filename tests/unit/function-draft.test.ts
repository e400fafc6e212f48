import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client';
import { AGENT_EDITOR_FORM_DEFAULTS, AgentEditorFormSchema } from '../../src/api/contract/agent/editor-form';
import { type AgentFunction, FUNCTION_MESSAGES, SECRET_MASK } from '../../src/api/contract/agent/functions';
import { functionsApi, loadToolsErrorText } from '../../src/api/functions';
import {
  draftOf,
  type FunctionDraft,
  functionOf,
  newDraft,
  PARAMETER_MESSAGES,
  schemaToRows,
  summaryOf,
  switchParamsMode,
} from '../../src/routes/dashboard/agents/-components/functions/function-draft';

const endCall: AgentFunction = { id: 1, type: 'end_call', name: 'end_call', description: '' };

function custom(patch: Partial<FunctionDraft> = {}): FunctionDraft {
  return {
    ...newDraft('custom', [endCall]),
    name: 'find_slots',
    url: 'https://api.clinic.example/slots',
    method: 'POST',
    headers: [{ name: 'Authorization', value: 'Bearer s3cret' }],
    params: [{ name: 'date', type: 'string', description: 'YYYY-MM-DD', required: true }],
    ...patch,
  };
}

describe('function drafts', () => {
  it('builds a custom function with the contract schema: parameters from the list, headers, defaults', () => {
    const r = functionOf(custom(), [endCall]);
    expect(r).toEqual({
      ok: true,
      value: {
        id: 2,
        type: 'custom',
        name: 'find_slots',
        description: '',
        speak_during: '',
        timeout_ms: 8000,
        url: 'https://api.clinic.example/slots',
        method: 'POST',
        headers: [{ name: 'Authorization', value: 'Bearer s3cret' }],
        parameters: {
          type: 'object',
          properties: { date: { type: 'string', description: 'YYYY-MM-DD' } },
          required: ['date'],
        },
      },
    });
    if (!r.ok) return;
    expect(summaryOf(r.value)).toBe('POST https://api.clinic.example/slots');
    // and back: the draft of the saved function shows the same rows
    expect(draftOf(r.value).params).toEqual(custom().params);
  });

  it('keys the contract messages to the inputs: name, url, timeout, a header row, a parameter row', () => {
    const r = functionOf(
      custom({
        name: 'find slots!',
        url: 'not a url',
        timeout_ms: '50',
        headers: [
          { name: '', value: '' },
          { name: 'Bad Header', value: 'x' },
        ],
        params: [
          { name: 'date', type: 'string', description: '', required: false },
          { name: 'date', type: 'number', description: '', required: false },
        ],
      }),
      [endCall],
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toMatchObject({
      name: FUNCTION_MESSAGES.namePattern,
      url: FUNCTION_MESSAGES.urlInvalid,
      timeout_ms: FUNCTION_MESSAGES.timeout,
      // the blank first row is dropped, the error stays on the second row
      'headers.1.name': FUNCTION_MESSAGES.headerName,
      'params.1.name': PARAMETER_MESSAGES.nameUnique,
    });
    expect(r.errors['headers.0.name']).toBeUndefined();
  });

  it('refuses a name another function has, and a second single-use function', () => {
    const dup = functionOf({ ...newDraft('web_search', [endCall]), name: 'end_call' }, [endCall]);
    expect(dup).toMatchObject({ ok: false, errors: { name: FUNCTION_MESSAGES.nameUnique } });
    const twice = functionOf({ ...newDraft('end_call', []), name: 'bye' }, [endCall]);
    expect(twice).toMatchObject({ ok: false, errors: { form: FUNCTION_MESSAGES.typeOnce } });
    // editing a function keeps its own name
    expect(functionOf(draftOf(endCall), [])).toMatchObject({ ok: true });
  });

  it('raw JSON parameters: invalid JSON or not an object schema is the parameters message', () => {
    for (const paramsJson of ['{"type": "object",', '[1,2]', '{"type": "string"}']) {
      const r = functionOf(custom({ paramsMode: 'json', paramsJson }), []);
      expect(r).toMatchObject({ ok: false, errors: { parameters: FUNCTION_MESSAGES.parameters } });
    }
    const nested = { type: 'object', properties: { when: { type: 'object', properties: { day: { type: 'string' } } } } };
    const ok = functionOf(custom({ paramsMode: 'json', paramsJson: JSON.stringify(nested) }), []);
    expect(ok).toMatchObject({ ok: true, value: { parameters: nested } });
    // a schema the list cannot show stays JSON
    expect(schemaToRows(nested)).toBeNull();
    expect(switchParamsMode(custom({ paramsMode: 'json', paramsJson: JSON.stringify(nested) }), 'list')).toEqual({
      error: PARAMETER_MESSAGES.notAList,
    });
    // list -> JSON -> list round-trips
    const asJson = switchParamsMode(custom(), 'json');
    expect('draft' in asJson && switchParamsMode(asJson.draft, 'list')).toMatchObject({ draft: { params: custom().params } });
  });

  it('a masked header value is kept as the mask (the server keeps the stored secret)', () => {
    const saved: AgentFunction = {
      id: 3,
      type: 'custom',
      name: 'crm',
      description: '',
      speak_during: '',
      timeout_ms: 8000,
      url: 'https://crm.example/api',
      method: 'GET',
      headers: [{ name: 'X-Api-Key', value: SECRET_MASK }],
      parameters: { type: 'object', properties: {}, required: [] },
    };
    expect(functionOf(draftOf(saved), [])).toMatchObject({ ok: true, value: { headers: [{ value: SECRET_MASK }] } });
  });

  it('Cal.com: event type ID required, an IANA time zone; other types', () => {
    const cal = { ...newDraft('check_availability_cal', []), event_type_id: '', timezone: 'Mars/Olympus' };
    expect(functionOf(cal, [])).toMatchObject({
      ok: false,
      errors: { event_type_id: FUNCTION_MESSAGES.eventTypeId, timezone: FUNCTION_MESSAGES.timezone },
    });
    const good = functionOf({ ...cal, event_type_id: '42', timezone: 'Europe/Berlin' }, []);
    expect(good).toMatchObject({ ok: true, value: { event_type_id: 42, timezone: 'Europe/Berlin' } });
    if (good.ok) expect(summaryOf(good.value)).toBe('Event type 42 · Europe/Berlin');

    expect(functionOf({ ...newDraft('send_whatsapp', []), template_name: 'Bad Name' }, [])).toMatchObject({
      ok: false,
      errors: { template_name: FUNCTION_MESSAGES.templateName },
    });
    expect(functionOf({ ...newDraft('send_whatsapp', []), template_name: 'visit_reminder' }, [])).toMatchObject({
      ok: true,
      value: { language: 'en_US' },
    });
    expect(functionOf({ ...newDraft('check_availability_calendly', []), event_type: 'x' }, [])).toMatchObject({
      ok: false,
      errors: { event_type: FUNCTION_MESSAGES.urlInvalid },
    });
    expect(functionOf({ ...newDraft('transfer', []), number: '12', mode: 'warm' }, [])).toMatchObject({ ok: false });
    expect(functionOf({ ...newDraft('transfer', []), number: '+14155550123', mode: 'warm' }, [])).toMatchObject({
      ok: true,
      value: { mode: 'warm', number: '+14155550123' },
    });
  });

  it('names a new function after its type, unique among the others', () => {
    const taken: AgentFunction[] = [
      { ...endCall, id: 1, type: 'web_search', name: 'custom', speak_during: '', timeout_ms: 8000 },
      { ...endCall, id: 2, name: 'custom_2' },
    ];
    expect(newDraft('custom', taken).name).toBe('custom_3');
  });
});

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('Load tools client', () => {
  it('posts {url, headers, agent_id, function_id} to /api/v1/agent/mcp-tools and reads the tools', async () => {
    const calls: { url: string; method?: string; body: unknown }[] = [];
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      calls.push({ url: String(input), method: init?.method, body: JSON.parse(String(init?.body)) });
      return json({
        success: true,
        tools: [{ name: 'search_orders', description: 'Find orders', input_schema: { type: 'object' } }],
      });
    }) as typeof globalThis.fetch;
    const api = functionsApi(createApiClient({ fetch }));
    const res = await api.mcpTools({
      url: 'https://mcp.example/mcp',
      headers: [{ name: 'Authorization', value: SECRET_MASK }],
      agent_id: 'a1',
      function_id: 4,
    });
    expect(res.tools).toEqual([{ name: 'search_orders', description: 'Find orders', input_schema: { type: 'object' } }]);
    expect(calls).toEqual([
      {
        url: '/api/v1/agent/mcp-tools',
        method: 'POST',
        body: {
          url: 'https://mcp.example/mcp',
          headers: [{ name: 'Authorization', value: SECRET_MASK }],
          agent_id: 'a1',
          function_id: 4,
        },
      },
    ]);
  });

  it('turns failures into words: the server message, the status, no answer', async () => {
    const answer = (r: () => Response | Promise<Response>) =>
      functionsApi(createApiClient({ fetch: (async () => r()) as typeof globalThis.fetch }))
        .mcpTools({ url: 'https://mcp.example/mcp', headers: [] })
        .then(
          () => 'no error',
          (e: unknown) => loadToolsErrorText(e),
        );
    expect(await answer(() => json({ success: false, msg: 'The MCP server refused the connection (401)' }, 400))).toBe(
      'Could not load the tools: The MCP server refused the connection (401)',
    );
    // the server's own failure message already says it: not said twice
    expect(
      await answer(() => json({ success: false, msg: 'Could not load the tools: The MCP server answered HTTP 500' }, 502)),
    ).toBe('Could not load the tools: The MCP server answered HTTP 500');
    expect(await answer(() => new Response('oops', { status: 502 }))).toBe('Could not load the tools (the server answered 502).');
    expect(
      await answer(() => {
        throw new TypeError('fetch failed');
      }),
    ).toMatch(/^Could not load the tools\. Could not reach the server/);
    // an answer that is not the list of tools
    expect(await answer(() => json({ success: true, tools: [{ description: 'no name' }] }))).toMatch(
      /^Could not load the tools\./,
    );
  });
});

describe('keypad settings of the editor form', () => {
  it('says what a bad digit count or timeout must be', () => {
    const issues = (patch: object) =>
      v
        .safeParse(AgentEditorFormSchema, { ...AGENT_EDITOR_FORM_DEFAULTS, voice: 'Rachel', voiceId: 'v1', ...patch })
        .issues?.map((i) => [i.path?.map((p) => p.key).join('.'), i.message]);
    expect(issues({ dtmf_max_digits: 4, dtmf_timeout_ms: 5000 })).toBeUndefined();
    expect(issues({ dtmf_max_digits: 51, dtmf_timeout_ms: Number.NaN })).toEqual([
      ['dtmf_max_digits', 'Keypad digits must be a whole number from 0 to 50'],
      ['dtmf_timeout_ms', 'Keypad timeout must be between 500 and 30000 ms'],
    ]);
  });
});
