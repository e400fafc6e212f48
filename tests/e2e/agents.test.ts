import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_EDITOR_FORM_DEFAULTS, editorFormToSavePayload } from '../../src/api/contract/agent/editor-form.js';
import type { AgentListItem } from '../../src/api/contract/agent/responses.js';
import type { AgentSavePayloadInput } from '../../src/api/contract/agent/save.js';
import { expectOnlyLocalRequests, openBrowser, type TestBrowser } from './browser.js';
import { type ApiUser, apiCall, signedInPage, signUpViaApi } from './session.js';

/**
 * End to end, in order, on one signed-in page: 25 agents seeded through the API, then the
 * table (sort both ways, a second sort with Shift, search, page size, next page, reload and
 * back/forward keep the URL state, hide a column), the Update Agent dialog (validation, save), delete
 * with confirmation, export then import, a bad import file, the error and empty states.
 */
let b: TestBrowser;
let page: Page;
let user: ApiUser;

const VOICE_MODELS = ['auto', 'turbo', 'flash'] as const;
/** 25 names: 3 of them contain 'Nurse'; the voice model cycles so a second sort key matters. */
const NAMES = [
  'Ava Front Desk',
  'Bea Billing',
  'Cal Night Nurse',
  'Dee Reminders',
  'Eli Intake',
  'Fay Triage',
  'Gus Follow-up',
  'Hal Pharmacy',
  'Ida Lab Results',
  'Jay Dental',
  'Kim Vision',
  'Lou Home Nurse',
  'Max Weekend',
  'Ned Morning',
  'Oz Survey',
  'Pia Booking',
  'Quinn Care',
  'Rae Clinic',
  'Sam Desk',
  'Tia Day Nurse',
  'Uma Referrals',
  'Vic Records',
  'Wes Insurance',
  'Xia Translation',
  'Yan Discharge',
];
const SORTED = [...NAMES].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1));

function payload(name: string, i: number): AgentSavePayloadInput {
  return editorFormToSavePayload({
    ...AGENT_EDITOR_FORM_DEFAULTS,
    agentName: name,
    voice: 'Rachel',
    voiceId: `voice-${String(i % 7).padStart(2, '0')}`,
    voiceSettings: { ...AGENT_EDITOR_FORM_DEFAULTS.voiceSettings, model: VOICE_MODELS[i % 3]! },
  });
}

const pathAndSearch = (p: Page) => {
  const u = new URL(p.url());
  return { path: u.pathname, params: Object.fromEntries(u.searchParams) };
};
const table = (p: Page) => p.getByRole('table', { name: 'Agents' });
/** The Agent Name cells of the rows shown, in order. */
const shownNames = async (p: Page) => {
  const rows = table(p).getByRole('row');
  const out: string[] = [];
  for (const row of await rows.all()) {
    const cells = row.getByRole('cell');
    if ((await cells.count()) > 1) out.push(((await cells.first().textContent()) ?? '').trim());
  }
  return out;
};
const header = (p: Page, name: string) => table(p).getByRole('columnheader', { name });
const notification = (p: Page, text: string) => p.getByRole('region', { name: 'Notifications' }).getByText(text, { exact: true });
const footerText = (p: Page, text: string) => p.getByText(text, { exact: true });
const rowActions = (p: Page, name: string) => p.getByRole('button', { name: `Actions for ${name}` });

/** expect.poll with room for a slow machine (its default is 1 s). */
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });

async function waitSettled(p: Page) {
  await poll(() => table(p).getAttribute('aria-busy')).toBe('false');
}

async function listViaApi(params: Record<string, string> = {}) {
  const res = await apiCall<{ data: { agents: AgentListItem[]; total: number } }>(
    b.baseUrl,
    user,
    'GET',
    `/agent?${new URLSearchParams({ limit: '100', ...params })}`,
  );
  return res.body.data;
}

beforeAll(async () => {
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Tara Tables');
  // a new company starts with the sample agent: remove it so the 25 seeded agents are all there is
  for (const agent of (await listViaApi()).agents)
    expect((await apiCall(b.baseUrl, user, 'DELETE', `/agent/${agent._id}`)).status).toBe(200);
  for (const [i, name] of NAMES.entries()) {
    const res = await apiCall(b.baseUrl, user, 'POST', '/agent', payload(name, i));
    expect(res.status).toBe(201);
  }
  page = await signedInPage(b, user);
});

afterAll(async () => {
  await b?.close();
});

// a failing step leaves a screenshot of the page to look at
afterEach(async (ctx) => {
  if (ctx.task.result?.state !== 'fail' || !page) return;
  const file = path.join(os.tmpdir(), `agents-e2e-${ctx.task.name.replace(/\W+/g, '-').slice(0, 60)}.png`);
  await page.screenshot({ path: file, fullPage: true }).catch(() => {});
  console.error(`screenshot of the failed step: ${file}`);
});

describe('the agents table in Chromium', () => {
  it('lists the seeded agents 10 at a time, newest first', async () => {
    await page.goto(b.url('/dashboard'));
    await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
    await footerText(page, 'Showing 1-10 of 25 records').waitFor();
    await footerText(page, 'Page 1 of 3').waitFor();
    for (const name of ['Agent Name', 'Voice ID', 'Voice Model', 'Actions']) await header(page, name).waitFor();
    // default order: most recently updated first (the last created)
    expect(await shownNames(page)).toEqual([...NAMES].reverse().slice(0, 10));
    expect(await page.getByRole('button', { name: 'Previous page' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Next page' }).isEnabled()).toBe(true);
  });

  it('sorts by name both ways with a click on the header', async () => {
    await header(page, 'Agent Name').getByRole('button', { name: 'Agent Name' }).click();
    await poll(() => pathAndSearch(page).params).toEqual({ sort: 'agent_name:asc' });
    await waitSettled(page);
    expect(await header(page, 'Agent Name').getAttribute('aria-sort')).toBe('ascending');
    expect(await shownNames(page)).toEqual(SORTED.slice(0, 10));

    await header(page, 'Agent Name').getByRole('button', { name: 'Agent Name' }).click();
    await poll(() => pathAndSearch(page).params).toEqual({ sort: 'agent_name:desc' });
    await waitSettled(page);
    expect(await header(page, 'Agent Name').getAttribute('aria-sort')).toBe('descending');
    expect(await shownNames(page)).toEqual([...SORTED].reverse().slice(0, 10));
  });

  it('a Shift+click adds a second sort key after the first', async () => {
    await header(page, 'Voice Model').getByRole('button', { name: 'Voice Model' }).click();
    await poll(() => pathAndSearch(page).params).toEqual({ sort: 'voice_model:asc' });
    await header(page, 'Agent Name')
      .getByRole('button', { name: 'Agent Name' })
      .click({ modifiers: ['Shift'] });
    await poll(() => pathAndSearch(page).params).toEqual({ sort: 'voice_model:asc,agent_name:asc' });
    await waitSettled(page);
    expect(await header(page, 'Voice Model').getAttribute('aria-sort')).toBe('ascending');
    expect(await header(page, 'Agent Name').getAttribute('aria-sort')).toBe('ascending');
    // 'auto' sorts first; within it, by name
    const auto = NAMES.filter((_, i) => i % 3 === 0).sort((a, c) => (a.toLowerCase() < c.toLowerCase() ? -1 : 1));
    const flash = NAMES.filter((_, i) => i % 3 === 2).sort((a, c) => (a.toLowerCase() < c.toLowerCase() ? -1 : 1));
    expect(await shownNames(page)).toEqual([...auto, flash[0]]);
    // the same key again with Shift turns its direction
    await header(page, 'Agent Name')
      .getByRole('button', { name: 'Agent Name' })
      .click({ modifiers: ['Shift'] });
    await poll(() => pathAndSearch(page).params).toEqual({ sort: 'voice_model:asc,agent_name:desc' });
    await waitSettled(page);
    expect((await shownNames(page)).slice(0, auto.length)).toEqual([...auto].reverse());
  });

  it('a click on the empty part of a header cell sorts too; Shift adds a key (spec: "Click a header to sort")', async () => {
    // a page of its own: the next tests go on from the shared page's sort
    const p = await b.newPage();
    await p.goto(b.url('/dashboard'));
    await waitSettled(p);
    /** clicks the header cell right of its text button, where only the cell is */
    const clickBeside = async (name: string, modifiers: 'Shift'[] = []) => {
      const cell = (await header(p, name).boundingBox())!;
      const button = (await header(p, name).getByRole('button', { name }).boundingBox())!;
      const x = cell.width - 4;
      expect(cell.x + x).toBeGreaterThan(button.x + button.width);
      await header(p, name).click({ position: { x, y: cell.height / 2 }, modifiers });
    };
    await clickBeside('Agent Name');
    await poll(() => pathAndSearch(p).params).toEqual({ sort: 'agent_name:asc' });
    await clickBeside('Agent Name');
    await poll(() => pathAndSearch(p).params).toEqual({ sort: 'agent_name:desc' });
    await clickBeside('Voice Model', ['Shift']);
    await poll(() => pathAndSearch(p).params).toEqual({ sort: 'agent_name:desc,voice_model:asc' });
    await waitSettled(p);
    expect(await header(p, 'Voice Model').getAttribute('aria-sort')).toBe('ascending');
    await p.close();
  });

  it('the search narrows the list (debounced) and starts at the first page', async () => {
    await page.getByRole('button', { name: 'Next page' }).click();
    await poll(() => pathAndSearch(page).params.page).toBe('1');
    await page.getByRole('searchbox', { name: 'Search agents' }).fill('nurse');
    await poll(() => pathAndSearch(page).params).toEqual({ search: 'nurse', sort: 'voice_model:asc,agent_name:desc' });
    await footerText(page, 'Showing 1-3 of 3 records').waitFor();
    await waitSettled(page);
    expect((await shownNames(page)).sort()).toEqual(['Cal Night Nurse', 'Lou Home Nurse', 'Tia Day Nurse']);
    await footerText(page, 'Page 1 of 1').waitFor();

    await page.getByRole('searchbox', { name: 'Search agents' }).fill('zzz nobody');
    await page.getByText('No results for “zzz nobody”').waitFor();
    await page.getByRole('button', { name: 'Clear search' }).click();
    await footerText(page, 'Showing 1-10 of 25 records').waitFor();
    expect(await page.getByRole('searchbox', { name: 'Search agents' }).inputValue()).toBe('');
    expect(pathAndSearch(page).params).toEqual({ sort: 'voice_model:asc,agent_name:desc' });
  });

  it('page size 5 shows Page 1 of 5; Next shows the second page', async () => {
    await page.goto(b.url('/dashboard?sort=agent_name:asc'));
    await footerText(page, 'Page 1 of 3').waitFor();
    await page.getByRole('button', { name: 'Next page' }).click();
    await footerText(page, 'Page 2 of 3').waitFor();
    await page.getByRole('combobox', { name: 'Rows per page' }).click();
    await page.getByRole('option', { name: '5', exact: true }).click();
    // a new page size returns to the first page
    await footerText(page, 'Page 1 of 5').waitFor();
    expect(pathAndSearch(page).params).toEqual({ sort: 'agent_name:asc', size: '5' });
    await waitSettled(page);
    expect(await shownNames(page)).toEqual(SORTED.slice(0, 5));

    await page.getByRole('button', { name: 'Next page' }).click();
    await footerText(page, 'Page 2 of 5').waitFor();
    await footerText(page, 'Showing 6-10 of 25 records').waitFor();
    expect(pathAndSearch(page).params).toEqual({ sort: 'agent_name:asc', size: '5', page: '1' });
    await waitSettled(page);
    expect(await shownNames(page)).toEqual(SORTED.slice(5, 10));
  });

  it('a reload keeps the URL state and the table; back and forward restore it', async () => {
    await page.reload();
    await footerText(page, 'Page 2 of 5').waitFor();
    expect(pathAndSearch(page).params).toEqual({ sort: 'agent_name:asc', size: '5', page: '1' });
    await waitSettled(page);
    expect(await shownNames(page)).toEqual(SORTED.slice(5, 10));
    expect(await header(page, 'Agent Name').getAttribute('aria-sort')).toBe('ascending');

    await page.goBack();
    await footerText(page, 'Page 1 of 5').waitFor();
    await waitSettled(page);
    expect(await shownNames(page)).toEqual(SORTED.slice(0, 5));
    await page.goForward();
    await footerText(page, 'Page 2 of 5').waitFor();
    await waitSettled(page);
    expect(await shownNames(page)).toEqual(SORTED.slice(5, 10));

    // the last page: Next is disabled
    for (let n = 3; n <= 5; n++) {
      await page.getByRole('button', { name: 'Next page' }).click();
      await footerText(page, `Page ${n} of 5`).waitFor();
    }
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await footerText(page, 'Showing 21-25 of 25 records').waitFor();
  });

  it('a hand-edited URL shows a valid first page instead of an error', async () => {
    await page.goto(b.url('/dashboard?page=-3&size=999&sort=bogus'));
    await footerText(page, 'Showing 1-10 of 25 records').waitFor();
    await footerText(page, 'Page 1 of 3').waitFor();
  });

  it("'Select Columns' hides and shows a column", async () => {
    await page.goto(b.url('/dashboard?sort=agent_name:asc'));
    await waitSettled(page);
    await page.getByRole('button', { name: 'Select Columns' }).click();
    const voiceId = page.getByRole('menuitemcheckbox', { name: 'Voice ID' });
    expect(await voiceId.getAttribute('aria-checked')).toBe('true');
    await voiceId.click();
    await poll(() => header(page, 'Voice ID').count()).toBe(0);
    expect(await voiceId.getAttribute('aria-checked')).toBe('false');
    await page.keyboard.press('Escape');
    // remembered across a reload
    await page.reload();
    await waitSettled(page);
    expect(await header(page, 'Voice ID').count()).toBe(0);
    await header(page, 'Voice Model').waitFor();
    await page.getByRole('button', { name: 'Select Columns' }).click();
    await page.getByRole('menuitemcheckbox', { name: 'Voice ID' }).click();
    await header(page, 'Voice ID').waitFor();
    await page.keyboard.press('Escape');
  });

  it('edits an agent in the Update Agent dialog; an empty name shows the message and saves nothing', async () => {
    await rowActions(page, 'Ava Front Desk').click();
    await page.getByRole('menuitem', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Update Agent' });
    await dialog.waitFor();
    expect(await dialog.getByLabel('Agent name').inputValue()).toBe('Ava Front Desk');
    expect(await dialog.getByLabel('Voice ID').inputValue()).toBe('voice-00');
    expect(await dialog.getByLabel('End call after silence (ms)').inputValue()).toBe('600000');

    await dialog.getByLabel('Agent name').fill('');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.getByText('Agent name is required').waitFor();
    expect(await dialog.isVisible()).toBe(true);
    expect((await listViaApi({ search: 'Ava' })).agents.map((a) => a.agent_name)).toEqual(['Ava Front Desk']);

    await dialog.getByLabel('Agent name').fill('Ava Reception');
    await dialog.getByLabel('Voice ID').fill('voice-new');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await notification(page, 'Agent updated').waitFor();
    await notification(page, 'The agent has been updated successfully.').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    await table(page).getByRole('link', { name: 'Ava Reception' }).waitFor();
    expect(await table(page).getByText('voice-new').count()).toBe(1);
    const saved = (await listViaApi({ search: 'Ava Reception' })).agents[0]!;
    expect(saved.voice_id).toBe('voice-new');
    expect(saved.version).toBe(2);

    // opening again starts from the saved record
    await rowActions(page, 'Ava Reception').click();
    await page.getByRole('menuitem', { name: 'Edit' }).click();
    expect(await dialog.getByLabel('Agent name').inputValue()).toBe('Ava Reception');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
  });

  it('deletes an agent after confirmation; an outside click and Cancel keep it', async () => {
    await rowActions(page, 'Bea Billing').click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Delete agent?' });
    await confirm.waitFor();
    await page.mouse.click(1270, 790); // outside the dialog, on the backdrop over empty page
    expect(await confirm.isVisible()).toBe(true);
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    expect((await listViaApi()).total).toBe(25);

    await rowActions(page, 'Bea Billing').click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await notification(page, 'Agent deleted').waitFor();
    await notification(page, 'The agent has been deleted successfully.').waitFor();
    await confirm.waitFor({ state: 'hidden' });
    await footerText(page, 'Showing 1-10 of 24 records').waitFor();
    expect(await table(page).getByRole('link', { name: 'Bea Billing' }).count()).toBe(0);
    expect((await listViaApi({ search: 'Bea Billing' })).total).toBe(0);
  });

  it('exports an agent as JSON and imports it back as a new agent', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      (async () => {
        await rowActions(page, 'Cal Night Nurse').click();
        await page.getByRole('menuitem', { name: 'Export' }).click();
      })(),
    ]);
    expect(download.suggestedFilename()).toBe('agent-cal-night-nurse.json');
    const file = await download.path();
    const exported = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(exported.format).toBe('parley.agent');
    expect(exported.version).toBe(1);
    expect(exported.agent.name).toBe('Cal Night Nurse');
    expect(exported.agent.settings.tts.options.voice_id).toBe('voice-02');
    expect(exported.agent.company).toBeUndefined();

    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Import' }).click()]);
    await chooser.setFiles(file);
    await notification(page, 'Agent imported').waitFor();
    await footerText(page, 'Showing 1-10 of 25 records').waitFor();
    const copies = (await listViaApi({ search: 'Cal Night Nurse' })).agents;
    expect(copies).toHaveLength(2);
    expect(new Set(copies.map((a) => a._id)).size).toBe(2);
    expect(copies.every((a) => a.voice_id === 'voice-02' && a.voice_model === exported.agent.settings.tts.options.model)).toBe(
      true,
    );
  });

  it('a file that is not an agent export is refused with a toast and creates nothing', async () => {
    for (const [name, content, message] of [
      ['notes.json', 'not json at all', 'The file is not JSON. Choose a file made by Export.'],
      ['other.json', '{"hello":"world"}', 'The file is not an agent export.'],
      [
        'broken.json',
        JSON.stringify({ format: 'parley.agent', version: 1, agent: { name: '', settings: {} } }),
        'The agent in the file is not valid: name: Agent name is required',
      ],
    ] as const) {
      const [chooser] = await Promise.all([
        page.waitForEvent('filechooser'),
        page.getByRole('button', { name: 'Import' }).click(),
      ]);
      await chooser.setFiles({ name, mimeType: 'application/json', buffer: Buffer.from(content) });
      await notification(page, message).waitFor();
      await notification(page, 'Import failed').waitFor();
    }
    expect((await listViaApi()).total).toBe(25);
  });

  it('a failed load shows the message and Retry', async () => {
    await page.route('**/api/v1/agent?*', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: '{"success":false,"msg":"Database is down"}' }),
    );
    await page.goto(b.url('/dashboard?search=nurse'));
    const alert = table(page).getByRole('alert');
    await alert.getByText('Database is down').waitFor();
    await page.unroute('**/api/v1/agent?*');
    await alert.getByRole('button', { name: 'Retry' }).click();
    await footerText(page, 'Showing 1-4 of 4 records').waitFor();
  });

  it('keyboard: headers sort with Enter, the row menu opens from the keyboard', async () => {
    await page.goto(b.url('/dashboard?size=5'));
    await waitSettled(page);
    const nameHeader = header(page, 'Agent Name').getByRole('button', { name: 'Agent Name' });
    await nameHeader.focus({ timeout: 10_000 });
    await page.keyboard.press('Enter');
    await poll(() => pathAndSearch(page).params).toEqual({ size: '5', sort: 'agent_name:asc' });
    await header(page, 'Voice ID').getByRole('button', { name: 'Voice ID' }).focus();
    await page.keyboard.press('Shift+Enter');
    await poll(() => pathAndSearch(page).params).toEqual({ size: '5', sort: 'agent_name:asc,voice_id:asc' });
    await waitSettled(page);
    const first = (await shownNames(page))[0]!;
    await rowActions(page, first).focus({ timeout: 10_000 });
    await page.keyboard.press('Enter');
    await page.getByRole('menuitem', { name: 'Edit' }).waitFor({ timeout: 10_000 });
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Escape');
    await page.getByRole('menu').waitFor({ state: 'hidden', timeout: 10_000 });
    expectOnlyLocalRequests(b.requests);
    expect(b.pageErrors).toEqual([]);
  });

  // last: the browser keeps one localStorage per origin, so this second user's page signs the first one out
  it("a company without agents sees 'No agents yet' with the create action", async () => {
    const empty = await signUpViaApi(b.baseUrl, 'Nadia New');
    const list = await apiCall<{ data: { agents: AgentListItem[] } }>(b.baseUrl, empty, 'GET', '/agent');
    for (const a of list.body.data.agents) await apiCall(b.baseUrl, empty, 'DELETE', `/agent/${a._id}`);
    const p = await signedInPage(b, empty);
    await p.goto(b.url('/dashboard'));
    const state = p.getByRole('heading', { name: 'No agents yet' });
    await state.waitFor();
    // 'Create an Agent' asks which kind
    const create = p.getByRole('button', { name: 'Create an Agent' });
    expect(await create.count()).toBe(2);
    await create.last().click();
    await p.getByRole('menuitem', { name: 'Conversation Flow' }).waitFor();
    await p.getByRole('menuitem', { name: 'Single Prompt' }).click();
    await poll(() => new URL(p.url()).pathname).toBe('/dashboard/agents/single-prompt');
    await p.close();
  });
});
