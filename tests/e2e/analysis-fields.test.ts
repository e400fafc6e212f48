import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../src/api/contract/agent/responses.js';
import { openBrowser, type TestBrowser } from './browser.js';
import { type ApiUser, apiCall, signedInPage, signUpViaApi } from './session.js';

let b: TestBrowser;
let user: ApiUser;
let page: Page;

beforeAll(async () => {
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Ana Lysis');
  page = await signedInPage(b, user);
  page.on('dialog', (d) => void d.accept());
});

afterAll(async () => {
  await b?.close();
});

describe("the agent's Post Call Analysis fields in Chromium", () => {
  it('adds fields of each kind, refuses a bad name and a list with one choice, and saves them with the agent', async () => {
    const list = await apiCall<{ data: { agents: Agent[] } }>(b.baseUrl, user, 'GET', '/agent?page=1&limit=1');
    const id = list.body.data.agents[0]?._id as string;
    await page.goto(b.url(`/dashboard/agents/${id}`));
    const section = page.getByRole('region', { name: 'Post Call Analysis' });
    await section.getByText('No custom fields yet.').waitFor();

    const add = async (name: string, type: string, choices?: string) => {
      await section.getByRole('button', { name: 'Add field' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add Analysis Field' });
      await dialog.getByRole('textbox', { name: 'Field name' }).fill(name);
      await dialog.getByRole('combobox', { name: 'Field type' }).click();
      await page.getByRole('option', { name: type, exact: true }).click();
      if (choices !== undefined) await dialog.getByRole('textbox', { name: 'Choices' }).fill(choices);
      await dialog.getByRole('textbox', { name: 'Description' }).fill(`About ${name}`);
      await dialog.getByRole('button', { name: 'Save' }).click();
      return dialog;
    };

    const bad = await add('1st', 'Text');
    await bad.getByText('Field name: letters, digits and _ only, starting with a letter').waitFor();
    await bad.getByRole('button', { name: 'Cancel' }).click();
    const single = await add('team', 'One of a list', 'sales');
    await single.getByText('A list field needs at least 2 choices').waitFor();
    await single.getByRole('textbox', { name: 'Choices' }).fill('sales, support');
    await single.getByRole('button', { name: 'Save' }).click();
    await add('party_size', 'Number');
    await add('callback', 'Yes / No');
    const fields = section.getByRole('list', { name: 'Analysis fields' });
    await fields.getByText('One of a list: sales, support · About team').waitFor();
    expect(await fields.getByRole('listitem').count()).toBe(3);
    await page.getByRole('dialog').waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Agent updated successfully!').waitFor();
    const saved = await apiCall<{ data: { agent: Agent } }>(b.baseUrl, user, 'GET', `/agent/${id}`);
    expect((saved.body.data.agent.editor as { postCallAnalysisFields: unknown }).postCallAnalysisFields).toEqual([
      { name: 'team', type: 'enum', description: 'About team', choices: ['sales', 'support'] },
      { name: 'party_size', type: 'number', description: 'About party_size', choices: [] },
      { name: 'callback', type: 'boolean', description: 'About callback', choices: [] },
    ]);
  });
});
