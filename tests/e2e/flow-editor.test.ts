import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../src/api/contract/agent/responses.js';
import { openBrowser, type TestBrowser } from './browser.js';
import { type ApiUser, apiCall, signedInPage, signUpViaApi } from './session.js';

let b: TestBrowser;
let user: ApiUser;
let page: Page;

beforeAll(async () => {
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Flow Drawer');
  page = await signedInPage(b, user);
  page.on('dialog', (d) => void (d.type() === 'beforeunload' ? d.accept() : d.dismiss()));
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail')
    await page.screenshot({ path: `/tmp/flow-editor-${ctx.task.name.slice(0, 30)}.png`, fullPage: true }).catch(() => {});
});

afterAll(async () => {
  await b?.close();
});

const pathOf = (p: Page) => new URL(p.url()).pathname;
const node = (label: string) => page.getByRole('group', { name: label });
const problems = () => page.getByRole('region', { name: /^Problems|^No problems/ });

describe('conversation flow editor in Chromium', () => {
  it('creates a flow agent, adds and connects a node by keyboard, saves, reloads; a problem selects its node', async () => {
    await page.goto(b.url('/dashboard'));
    await page.getByRole('button', { name: 'Create an Agent' }).first().click();
    await page.getByRole('menuitem', { name: 'Conversation Flow' }).click();
    await expect.poll(() => pathOf(page)).toBe('/dashboard/agents/conversation-flow');
    await page.getByText('Conversation flow', { exact: true }).waitFor();

    // a new flow: a start Conversation node and an End node, connected, with no problem
    await node('Conversation node Greeting (start)').waitFor();
    await node('End call node End call').waitFor();
    await page.getByRole('heading', { name: 'No problems' }).waitFor();

    // the global settings are a panel of their own; a voice is needed to save
    await page.getByRole('region', { name: 'Global settings' }).waitFor();
    await page.getByRole('textbox', { name: 'Global prompt' }).fill('You are the receptionist of Harbor Clinic.');
    await page.getByRole('combobox', { name: 'Voice', exact: true }).click();
    await page.getByRole('option', { name: /^Rachel/ }).click();

    // add a node from the toolbar: it is selected, unreachable and without a way out
    await page.getByRole('button', { name: 'Add Conversation node' }).click();
    await page.getByRole('textbox', { name: 'Node name' }).fill('Booking');
    await node('Conversation node Booking').waitFor();
    await page.getByRole('heading', { name: 'Problems (2)' }).waitFor();

    // undo and redo the name (one step for the typing) with the buttons
    await page.getByRole('button', { name: 'Undo' }).click();
    await node('Conversation node Conversation').waitFor();
    await page.getByRole('button', { name: 'Redo' }).click();
    await node('Conversation node Booking').waitFor();
    await page.getByRole('textbox', { name: 'Instruction' }).fill('Ask for a day and a time.');

    // a problem selects its node: select the greeting with the mouse, then the problem
    await node('Conversation node Greeting (start)').click();
    await expect.poll(() => page.getByRole('textbox', { name: 'Node name' }).inputValue()).toBe('Greeting');
    await problems().getByRole('button', { name: 'Booking: No path from the start node reaches this node' }).click();
    await expect.poll(() => page.getByRole('textbox', { name: 'Node name' }).inputValue()).toBe('Booking');

    // Save is refused while there are problems, with the list
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('The flow cannot be saved until these problems are fixed.').waitFor();
    expect(pathOf(page)).toBe('/dashboard/agents/conversation-flow');

    // connect by keyboard: the greeting's 'Add edge', then 'To' and the condition in the edge panel
    // (the keyboard selects a node on the canvas: Tab to it, Enter)
    await node('Conversation node Greeting (start)').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('textbox', { name: 'Node name' }).inputValue()).toBe('Greeting');
    await page.getByRole('button', { name: 'Add edge' }).click();
    await page.getByRole('heading', { name: 'Edge', exact: true }).waitFor();
    const to = page.getByRole('combobox', { name: 'To', exact: true });
    await to.focus();
    await to.selectOption({ label: 'Booking (Conversation)' });
    await page.getByRole('combobox', { name: 'Condition type' }).selectOption('prompt');
    await page.getByRole('textbox', { name: 'Condition', exact: true }).fill('The caller wants an appointment');
    await page.getByRole('group', { name: 'Edge from Greeting to Booking: The caller wants an appointment' }).waitFor();

    // the booking node's way out: to the end node, always
    await problems()
      .getByRole('button', { name: /^Booking: The node has no way out/ })
      .click();
    await page.getByRole('button', { name: 'Add edge' }).click();
    await page.getByRole('combobox', { name: 'To', exact: true }).selectOption({ label: 'End call (End call)' });
    await page.getByRole('combobox', { name: 'Condition type' }).selectOption('always');
    await page.getByRole('heading', { name: 'No problems' }).waitFor();

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('New agent created successfully!').waitFor();
    await expect.poll(() => pathOf(page)).toMatch(/^\/dashboard\/?$/);

    // the list shows the kind; the saved agent is a flow agent with the three nodes
    const row = page.getByRole('row', { name: /New Flow Agent/ });
    await row.getByText('Conversation flow').waitFor();
    const list = await apiCall<{ data: { agents: { _id: string; agent_name: string; kind: string }[] } }>(
      b.baseUrl,
      user,
      'GET',
      '/agent',
    );
    const saved = list.body.data.agents.find((a) => a.agent_name === 'New Flow Agent');
    expect(saved?.kind).toBe('conversation_flow');
    const got = await apiCall<{ data: { agent: Agent } }>(b.baseUrl, user, 'GET', `/agent/${saved?._id}`);
    const flow = got.body.data.agent.flow!;
    expect(flow.global_prompt).toBe('You are the receptionist of Harbor Clinic.');
    expect(flow.nodes.map((n) => n.name).sort()).toEqual(['Booking', 'End call', 'Greeting']);
    expect(flow.nodes.every((n) => n.position !== undefined)).toBe(true);

    // open it from the list, reload: the editor of its kind shows the nodes and the edge's condition
    await row.getByRole('link', { name: 'New Flow Agent' }).click();
    await expect.poll(() => pathOf(page)).toBe(`/dashboard/agents/${saved?._id}`);
    await page.reload();
    await node('Conversation node Greeting (start)').waitFor();
    await node('Conversation node Booking').waitFor();
    await node('End call node End call').waitFor();
    await page.getByRole('group', { name: 'Edge from Greeting to Booking: The caller wants an appointment' }).waitFor();
    await page.getByRole('heading', { name: 'No problems' }).waitFor();
  });
});
