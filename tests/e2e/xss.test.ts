import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_EDITOR_FORM_DEFAULTS, editorFormToSavePayload } from '../../src/api/contract/agent/editor-form.js';
import type { AgentListItem } from '../../src/api/contract/agent/responses.js';
import { prettyPhoneNumber } from '../../src/api/contract/phone.js';
import { expectOnlyLocalRequests, openBrowser, type TestBrowser } from './browser.js';
import { insertCalls } from './seed-db.js';
import { type ApiUser, apiCall, createNumberViaApi, signedInPage, signUpViaApi } from './session.js';

/**
 * In Chromium: agent names that are markup render as text everywhere they appear (the Agents
 * table, its row actions, the Update Agent dialog, the delete confirmation, the editor's header, the Assign
 * Agent dialog's options and the assigned number's row, the billing usage by agent), nothing
 * of them runs, and the Content-Security-Policy refuses inline script: a script element added with inline
 * text does not run and is reported as a violation.
 */

const IMG = '<img src=x onerror=window.__xss=1>';
const SCRIPT = '<script>window.__xss=1</script>';
const NAMES = [IMG, SCRIPT];

let b: TestBrowser;
let page: Page;
let user: ApiUser;
const ids = new Map<string, string>();

/** What the page reports: the canary, the markup that became elements, and the CSP violations seen. */
const probe = (p: Page) =>
  p.evaluate(() => ({
    xss: (window as unknown as { __xss?: unknown }).__xss,
    injectedImages: document.querySelectorAll('img[src="x"]').length,
    injectedScripts: [...document.querySelectorAll('script')].filter((s) => s.textContent?.includes('__xss')).length,
    violations: ((window as unknown as { __csp?: string[] }).__csp ?? []).slice(),
  }));

async function expectInert(p: Page) {
  const seen = await probe(p);
  expect(seen.xss).toBeUndefined();
  expect(seen.injectedImages).toBe(0);
  expect(seen.injectedScripts).toBe(0);
}

const table = (p: Page) => p.getByRole('table', { name: 'Agents' });
const rowActions = (p: Page, name: string) => p.getByRole('button', { name: `Actions for ${name}` });

beforeAll(async () => {
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Xavier Scripts');
  for (const name of NAMES) {
    const res = await apiCall<{ data: { agent: { _id: string } } }>(
      b.baseUrl,
      user,
      'POST',
      '/agent',
      editorFormToSavePayload({ ...AGENT_EDITOR_FORM_DEFAULTS, agentName: name, voice: 'Rachel', voiceId: 'voice-a' }),
    );
    expect(res.status).toBe(201);
    ids.set(name, res.body.data.agent._id);
  }
  page = await signedInPage(b, user);
  // every CSP violation the page sees, recorded before any script of the app runs
  await page.addInitScript(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.effectiveDirective} ${e.blockedURI}`));
  });
});

afterAll(async () => {
  await b?.close();
});

describe('markup in agent names, in Chromium', () => {
  it('the page is served with a CSP that allows no inline script', async () => {
    const res = await page.goto(b.url('/dashboard'));
    const csp = res?.headers()['content-security-policy'] ?? '';
    const directives = new Map(
      csp.split(';').map((d) => {
        const [name, ...sources] = d.trim().split(/\s+/);
        return [name, sources] as const;
      }),
    );
    // script only from the app's own files: no inline script, no eval, no other origin
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.has('script-src-elem') || directives.has('script-src-attr')).toBe(false);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'self'"]);
  });

  it('the Agents table shows both names as text, as links and in the row actions', async () => {
    await page.goto(b.url('/dashboard'));
    for (const name of NAMES) {
      const link = table(page).getByRole('link', { name, exact: true });
      await link.waitFor();
      expect(await link.textContent()).toBe(name);
      await rowActions(page, name).waitFor();
    }
    // the list the table was drawn from holds the same strings
    const listed = await apiCall<{ data: { agents: AgentListItem[] } }>(b.baseUrl, user, 'GET', '/agent?limit=100');
    expect(listed.body.data.agents.map((a) => a.agent_name)).toEqual(expect.arrayContaining(NAMES));
    await expectInert(page);
  });

  it('the Update Agent dialog and the delete confirmation show the names as text', async () => {
    for (const name of NAMES) {
      await rowActions(page, name).click();
      await page.getByRole('menuitem', { name: 'Edit' }).click();
      const dialog = page.getByRole('dialog', { name: 'Update Agent' });
      await dialog.waitFor();
      expect(await dialog.getByLabel('Agent name').inputValue()).toBe(name);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });

      await rowActions(page, name).click();
      await page.getByRole('menuitem', { name: 'Delete' }).click();
      const confirm = page.getByRole('alertdialog', { name: 'Delete agent?' });
      await confirm.waitFor();
      await confirm.getByText(`“${name}” will be deleted permanently`, { exact: false }).waitFor();
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await confirm.waitFor({ state: 'hidden' });
      await expectInert(page);
    }
  });

  it("the editor's header shows each name as text", async () => {
    for (const name of NAMES) {
      await page.goto(b.url(`/dashboard/agents/${ids.get(name)}`));
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(name);
      await expectInert(page);
    }
  });

  it('the Assign Agent dialog offers the names as text, and the assigned number shows one as text', async () => {
    const phone = '+13125550177';
    await createNumberViaApi(b.baseUrl, user, phone);
    const shown = prettyPhoneNumber(phone);
    await page.goto(b.url('/dashboard/phone-numbers'));
    const assigned = page.getByRole('table', { name: 'Assigned Numbers' });
    await assigned.getByRole('button', { name: `Actions for ${shown}` }).click();
    await page.getByRole('menuitem', { name: 'Assign Agent' }).click();
    const dialog = page.getByRole('dialog', { name: 'Assign Agent to Phone Number' });
    for (const name of NAMES) await dialog.getByRole('radio', { name, exact: true }).waitFor();
    await expectInert(page);
    await dialog.getByRole('radio', { name: IMG, exact: true }).check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await assigned.getByRole('row').filter({ hasText: shown }).getByText(`Inbound: ${IMG}`, { exact: true }).waitFor();
    await expectInert(page);
  });

  it("the billing usage breakdown shows the agents' names as text", async () => {
    const now = new Date();
    const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1, 1));
    await insertCalls(
      user.companyId,
      '+14155550162',
      NAMES.map((name) => ({ time: first, duration: 60, cost: 0.1, agentId: ids.get(name) ?? null })),
    );
    await page.goto(b.url('/dashboard/billing?tab=usage'));
    const byAgent = page.getByRole('table', { name: 'Usage by agent' });
    for (const name of NAMES) await byAgent.getByRole('rowheader', { name, exact: true }).waitFor();
    await expectInert(page);
  });

  it('an inline script added to the page does not run, and the CSP reports it', async () => {
    await page.goto(b.url('/dashboard'));
    await table(page).getByRole('link', { name: IMG, exact: true }).waitFor();
    const before = (await probe(page)).violations.length;
    await page.evaluate(() => {
      const s = document.createElement('script');
      s.textContent = 'window.__xss = "inline script ran"';
      document.head.append(s);
      // an inline event handler is inline script too
      const img = document.createElement('img');
      img.setAttribute('onerror', 'window.__xss = "handler ran"');
      img.src = 'data:,not-an-image';
      document.body.append(img);
    });
    await expect.poll(async () => (await probe(page)).violations.length).toBeGreaterThanOrEqual(before + 2);
    const seen = await probe(page);
    expect(seen.xss).toBeUndefined();
    expect(seen.violations.slice(before)).toEqual(expect.arrayContaining(['script-src-elem inline', 'script-src-attr inline']));
    expectOnlyLocalRequests(b.requests);
    expect(b.pageErrors).toEqual([]);
  });
});
