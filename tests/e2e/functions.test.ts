import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AgentFunction, FUNCTION_MESSAGES, SECRET_MASK } from '../../src/api/contract/agent/functions.js';
import type { Agent } from '../../src/api/contract/agent/responses.js';
import { FakeMcpServer } from '../fakes/mcp-server.js';
import { openBrowser, type TestBrowser } from './browser.js';
import { type ApiUser, apiCall, signedInPage, signUpViaApi } from './session.js';

let b: TestBrowser;
let mcp: FakeMcpServer;
let user: ApiUser;
let page: Page;
let agentId = '';
/** the `functions` of every agent save the page sent (PUT /agent/:id) */
const sentFunctions: AgentFunction[][] = [];

const SECRET = 'Bearer s3cret-clinic-token';

beforeAll(async () => {
  b = await openBrowser();
  // a real MCP server on 127.0.0.1 (the e2e server has ALLOW_PRIVATE_TOOL_URLS=true)
  mcp = await FakeMcpServer.start();
  user = await signUpViaApi(b.baseUrl, 'Fern Unction');
  page = await signedInPage(b, user);
  page.on('dialog', (d) => void d.accept());
  const list = await apiCall<{ data: { agents: Agent[] } }>(b.baseUrl, user, 'GET', '/agent?page=1&limit=1');
  agentId = list.body.data.agents[0]?._id as string;
  // what the editor sends on each agent save (the real server answers; header values come back masked)
  page.on('request', (request) => {
    if (request.method() !== 'PUT' || !request.url().endsWith(`/api/v1/agent/${agentId}`)) return;
    const body = request.postDataJSON() as { editor?: { functions?: AgentFunction[] } };
    sentFunctions.push(body.editor?.functions ?? []);
  });
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail')
    await page.screenshot({ path: `/tmp/functions-${ctx.task.name.slice(0, 30)}.png` }).catch(() => {});
});

afterAll(async () => {
  await b?.close();
  await mcp?.close();
});

const section = () => page.getByRole('region', { name: 'Functions' });
const functionList = () => section().getByRole('list', { name: 'Functions' });

async function addFunction(type: string, title: string) {
  await section().getByRole('button', { name: 'Add function' }).click();
  await page.getByRole('menuitem', { name: type, exact: true }).click();
  const dialog = page.getByRole('dialog', { name: title });
  await dialog.waitFor();
  return dialog;
}

describe('the Functions section in Chromium', () => {
  it('offers every function type; a custom function shows the field errors, then saves with a parameter and a header', async () => {
    await page.goto(b.url(`/dashboard/agents/${agentId}`));
    // the sample agent of a new company ends calls
    await functionList().getByText('end_call', { exact: true }).waitFor();

    await section().getByRole('button', { name: 'Add function' }).click();
    for (const label of [
      'End Call',
      'Transfer Call',
      'Custom Function',
      'MCP Server',
      'Check Availability (Cal.com)',
      'Book Appointment (Cal.com)',
      'Check Availability (Calendly)',
      'Book Appointment (Calendly)',
      'Web Search (Perplexity)',
      'Send SMS',
      'Send WhatsApp Message',
      'Press Digits',
    ])
      await page.getByRole('menuitem', { name: label, exact: true }).waitFor();
    await page.keyboard.press('Escape');

    const dialog = await addFunction('Custom Function', 'Add Custom Function');
    const name = dialog.getByRole('textbox', { name: 'Name' });
    const url = dialog.getByRole('textbox', { name: 'URL' });
    await name.fill('find slots!');
    await url.fill('not a url');
    await dialog.getByRole('button', { name: 'Save' }).click();
    // the contract's messages at their fields; what was typed stays
    await dialog.getByText(FUNCTION_MESSAGES.namePattern).waitFor();
    await dialog.getByText(FUNCTION_MESSAGES.urlInvalid).waitFor();
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    expect(await url.getAttribute('aria-invalid')).toBe('true');
    expect(await name.inputValue()).toBe('find slots!');
    expect(await url.inputValue()).toBe('not a url');

    await name.fill('find_slots');
    await url.fill('https://api.clinic.example/slots');
    await dialog.getByRole('textbox', { name: 'Description (optional)' }).fill('Free appointment slots on a day');
    await dialog.getByRole('textbox', { name: 'Speak during (optional)' }).fill('One moment while I check that.');
    await dialog.getByRole('combobox', { name: 'Method' }).click();
    await page.getByRole('option', { name: 'GET', exact: true }).click();

    await dialog.getByRole('button', { name: 'Add parameter' }).click();
    await dialog.getByRole('textbox', { name: 'Parameter name 1' }).fill('date');
    await dialog.getByRole('textbox', { name: 'Parameter description 1' }).fill('The day, YYYY-MM-DD');
    await dialog.getByRole('checkbox', { name: 'Parameter 1 required' }).check();

    await dialog.getByRole('button', { name: 'Add header' }).click();
    await dialog.getByRole('textbox', { name: 'Header name 1' }).fill('Authorization');
    const headerValue = dialog.getByLabel('Header value 1', { exact: true });
    await headerValue.fill(SECRET);
    // a secret is never shown in clear
    expect(await headerValue.getAttribute('type')).toBe('password');

    // raw JSON: the list's parameters as a JSON Schema, and invalid JSON refused
    await dialog.getByRole('switch', { name: 'Edit as JSON' }).check();
    const json = dialog.getByRole('textbox', { name: 'Parameters (JSON Schema)' });
    expect(JSON.parse(await json.inputValue())).toEqual({
      type: 'object',
      properties: { date: { type: 'string', description: 'The day, YYYY-MM-DD' } },
      required: ['date'],
    });
    const schema = await json.inputValue();
    await json.fill('{"type": "array"}');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText(FUNCTION_MESSAGES.parameters).waitFor();
    await json.fill(schema);
    await dialog.getByRole('switch', { name: 'Edit as JSON' }).uncheck();
    expect(await dialog.getByRole('textbox', { name: 'Parameter name 1' }).inputValue()).toBe('date');

    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await functionList().getByText('Custom Function · GET https://api.clinic.example/slots').waitFor();

    // a second function with the same name is refused at the name
    const twin = await addFunction('Custom Function', 'Add Custom Function');
    await twin.getByRole('textbox', { name: 'Name' }).fill('find_slots');
    await twin.getByRole('textbox', { name: 'URL' }).fill('https://api.clinic.example/other');
    await twin.getByRole('button', { name: 'Save' }).click();
    await twin.getByText(FUNCTION_MESSAGES.nameUnique).waitFor();
    await twin.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
  });

  it('adds a Cal.com function (with the Providers page pointer), saves the agent, and finds both after a reload', async () => {
    const dialog = await addFunction('Check Availability (Cal.com)', 'Add Check Availability (Cal.com) function');
    // the company has not connected Cal.com
    await dialog.getByText('Uses your Cal.com key:').waitFor();
    expect(await dialog.getByRole('link', { name: 'Connect Cal.com on the Providers page' }).getAttribute('href')).toBe(
      '/dashboard/providers',
    );
    await dialog.getByRole('textbox', { name: 'Name' }).fill('check_slots');
    const timeZone = dialog.getByRole('combobox', { name: 'Time zone' });
    await timeZone.fill('Mars/Olympus');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText(FUNCTION_MESSAGES.eventTypeId).waitFor();
    await dialog.getByText(FUNCTION_MESSAGES.timezone).waitFor();
    await dialog.getByRole('textbox', { name: 'Event type ID' }).fill('123456');
    await timeZone.fill('Europe/Berlin');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await functionList().getByText('Check Availability (Cal.com) · Event type 123456 · Europe/Berlin').waitFor();
    await page.getByRole('dialog').waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Agent updated successfully!').waitFor();
    expect(sentFunctions.at(-1)?.slice(1)).toEqual([
      {
        id: 2,
        type: 'custom',
        name: 'find_slots',
        description: 'Free appointment slots on a day',
        speak_during: 'One moment while I check that.',
        timeout_ms: 8000,
        url: 'https://api.clinic.example/slots',
        method: 'GET',
        headers: [{ name: 'Authorization', value: SECRET }],
        parameters: {
          type: 'object',
          properties: { date: { type: 'string', description: 'The day, YYYY-MM-DD' } },
          required: ['date'],
        },
      },
      {
        id: 3,
        type: 'check_availability_cal',
        name: 'check_slots',
        description: '',
        speak_during: '',
        timeout_ms: 8000,
        event_type_id: 123456,
        timezone: 'Europe/Berlin',
      },
    ]);

    await page.reload();
    await functionList().getByText('Custom Function · GET https://api.clinic.example/slots').waitFor();
    await functionList().getByText('Check Availability (Cal.com) · Event type 123456 · Europe/Berlin').waitFor();

    // the real API answers the saved header value as the mask, never in clear
    const stored = await apiCall<{ data: { agent: Agent } }>(b.baseUrl, user, 'GET', `/agent/${agentId}`);
    expect(JSON.stringify(stored.body)).not.toContain('s3cret-clinic-token');
    const custom = (stored.body.data.agent.editor.functions as AgentFunction[]).find((f) => f.name === 'find_slots');
    expect(custom && 'headers' in custom ? custom.headers : []).toEqual([{ name: 'Authorization', value: SECRET_MASK }]);
    // the saved header value is shown as the mask, never in clear
    await section().getByRole('button', { name: 'Edit function find_slots' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Custom Function' });
    const headerValue = edit.getByLabel('Header value 1', { exact: true });
    expect(await headerValue.inputValue()).toBe(SECRET_MASK);
    expect(await headerValue.getAttribute('type')).toBe('password');
    expect(await page.content()).not.toContain(SECRET);
    expect(await edit.getByRole('textbox', { name: 'Parameter name 1' }).inputValue()).toBe('date');
    expect(await edit.getByRole('checkbox', { name: 'Parameter 1 required' }).isChecked()).toBe(true);
    // an edit elsewhere leaves the masked value untouched: the save sends the mask back (the server keeps the secret)
    await edit.getByRole('textbox', { name: 'Speak during (optional)' }).fill('Let me look.');
    await edit.getByRole('button', { name: 'Update' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Agent updated successfully!').nth(0).waitFor();
    await expect.poll(() => sentFunctions.length).toBe(2);
    expect(sentFunctions[1]?.[1]).toMatchObject({
      speak_during: 'Let me look.',
      headers: [{ name: 'Authorization', value: SECRET_MASK }],
    });
  });

  it('keypad input: the caller digits settings are in Call Settings and saved with the agent', async () => {
    const digits = page.getByRole('spinbutton', { name: 'Keypad digits' });
    await digits.fill('4');
    await page.getByRole('spinbutton', { name: 'Keypad timeout (ms)' }).fill('5000');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect
      .poll(async () => {
        const res = await apiCall<{ data: { agent: Agent } }>(b.baseUrl, user, 'GET', `/agent/${agentId}`);
        const editor = res.body.data.agent.editor as { dtmf_max_digits: number; dtmf_timeout_ms: number };
        return [editor.dtmf_max_digits, editor.dtmf_timeout_ms];
      })
      .toEqual([4, 5000]);
  });
  it("an MCP server: 'Load tools' lists the server's tools with checkboxes that set the allowed tools; a failure is said in words", async () => {
    // the real endpoint connects to the MCP server the test runs; a wrong token is refused by it
    const dialog = await addFunction('MCP Server', 'Add MCP Server function');
    await dialog.getByRole('textbox', { name: 'Name' }).fill('orders');
    await dialog.getByRole('textbox', { name: 'URL' }).fill(mcp.url);
    await dialog.getByRole('button', { name: 'Add header' }).click();
    await dialog.getByRole('textbox', { name: 'Header name 1' }).fill('Authorization');
    const value = dialog.getByLabel('Header value 1', { exact: true });
    await value.fill('Bearer wrong-token');

    await dialog.getByRole('button', { name: 'Load tools' }).click();
    await expect
      .poll(() => dialog.getByRole('alert').textContent())
      .toBe('Could not load the tools: The MCP server refused the credentials (HTTP 401): check the headers');
    expect(mcp.requests.length).toBeGreaterThan(0);
    expect(mcp.requests.every((r) => !r.authorized)).toBe(true);

    await value.fill(`Bearer ${mcp.token}`);
    await dialog.getByRole('button', { name: 'Load tools' }).click();
    const tools = dialog.getByRole('list', { name: 'Server tools' });
    const cancel = tools.getByRole('checkbox', { name: /^cancel_order/ });
    await cancel.waitFor();
    expect(await dialog.getByRole('alert').count()).toBe(0);
    // every page of the server's tools/list is shown
    for (const name of ['lookup_order', 'store_hours', 'slow_search'])
      await tools.getByRole('checkbox', { name: new RegExp(`^${name}`) }).waitFor();
    expect(mcp.methods).toContain('tools/list');
    // nothing chosen yet: every tool is allowed
    expect(await tools.getByRole('checkbox', { name: /^lookup_order/ }).isChecked()).toBe(true);
    for (const name of ['cancel_order', 'store_hours', 'slow_search'])
      await tools.getByRole('checkbox', { name: new RegExp(`^${name}`) }).uncheck();
    expect(await dialog.getByRole('textbox', { name: 'Allowed tools' }).inputValue()).toMatch(/^lookup_order\b/);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await functionList().getByText(`MCP Server · ${mcp.url} · `, { exact: false }).waitFor();
  });
});
