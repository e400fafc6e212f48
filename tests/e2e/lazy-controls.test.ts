// Menus and selects render a plain stand-in until first used (src/ui/lazy-control.ts); Ariakit, their
// implementation, downloads on hover or focus and mounts on a click or an arrow key. These tests check
// the Agents page loads without it, and that the keyboard reaches every control as before.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_AGENT_PAYLOAD } from '../../server/modules/agents/sample-agent.js';
import { openBrowser, type TestBrowser } from './browser.js';
import { type ApiUser, apiCall, signedInPage, signUpViaApi } from './session.js';

let b: TestBrowser;
let user: ApiUser;

beforeAll(async () => {
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Lazy Controls');
  const res = await apiCall(b.baseUrl, user, 'POST', '/agent', { ...SAMPLE_AGENT_PAYLOAD, name: 'Front desk' });
  expect(res.status).toBe(201);
});

afterAll(async () => {
  await b?.close();
});

const ARIAKIT_CHUNK = /\/assets\/ariakit-[\w-]+\.js$/;

async function agentsPage(): Promise<{ page: Page; requested: () => boolean }> {
  const page = await signedInPage(b, user);
  let requested = false;
  page.on('request', (r) => {
    if (ARIAKIT_CHUNK.test(r.url())) requested = true;
  });
  await page.goto(b.url('/dashboard'));
  await page.getByRole('link', { name: 'Front desk' }).waitFor();
  return { page, requested: () => requested };
}

describe('menus and selects before and after first use', () => {
  it('the Agents page renders without Ariakit; the stand-ins carry the names and ARIA state', async () => {
    const { page, requested } = await agentsPage();
    const size = page.getByRole('combobox', { name: 'Rows per page' });
    expect(await size.getAttribute('aria-expanded')).toBe('false');
    expect(await size.textContent()).toContain('10');
    const columns = page.getByRole('button', { name: 'Select Columns' });
    expect(await columns.getAttribute('aria-haspopup')).toBe('menu');
    expect(await columns.getAttribute('aria-expanded')).toBe('false');
    await page.getByRole('button', { name: /^Account menu: Lazy Controls$/ }).waitFor();
    expect(requested()).toBe(false);
    await page.close();
  });

  it('ArrowDown on the page-size select opens the listbox on the current size; ArrowDown and Enter pick the next one', async () => {
    const { page } = await agentsPage();
    await page.getByRole('combobox', { name: 'Rows per page' }).focus();
    await page.keyboard.press('ArrowDown');
    await page.getByRole('listbox').waitFor();
    expect(await page.getByRole('option').count()).toBe(6);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).searchParams.get('size')).toBe('20');
    // the listbox closes and the focus is back on the select
    await expect.poll(() => page.getByRole('listbox').count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('combobox');
    expect(await page.getByRole('combobox', { name: 'Rows per page' }).textContent()).toContain('20');
    await page.close();
  });

  it('ArrowDown on the account menu opens it; Escape closes it and gives the focus back to its button', async () => {
    const { page, requested } = await agentsPage();
    const button = page.getByRole('button', { name: /^Account menu:/ });
    await button.focus();
    await page.keyboard.press('ArrowDown');
    await page.getByRole('menuitem', { name: 'Log out' }).waitFor();
    expect(requested()).toBe(true);
    // opened by a key, the menu puts the focus on its first item, as Ariakit's own button does
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('menuitem');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('menu').count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toMatch(/^Account menu:/);
    // once used, the menu opens again like any Ariakit menu
    await page.getByRole('button', { name: /^Account menu:/ }).click();
    await page.getByRole('menuitem', { name: 'Log out' }).waitFor();
    await page.close();
  });

  it("a row's actions menu opens on click and its Edit item opens the Update Agent dialog", async () => {
    const { page } = await agentsPage();
    await page.getByRole('button', { name: /Actions for Front desk/i }).click();
    await page.getByRole('menuitem', { name: 'Edit' }).click();
    await page.getByRole('dialog').waitFor();
    expect(await page.getByRole('dialog').getByRole('textbox').first().inputValue()).toBe('Front desk');
    expect(b.pageErrors).toEqual([]);
    await page.close();
  });

  it('offline when a menu is first used: a toast says so and nothing opens; back online, the next click opens it', async () => {
    const { page } = await agentsPage();
    await page.route(ARIAKIT_CHUNK, (route) => route.abort('internetdisconnected'));
    const columns = page.getByRole('button', { name: 'Select Columns' });
    await columns.click();
    await page.getByRole('alert').filter({ hasText: 'Could not open' }).waitFor();
    expect(await page.getByRole('menu').count()).toBe(0);
    expect(await columns.getAttribute('aria-expanded')).toBe('false');

    await page.unroute(ARIAKIT_CHUNK);
    await columns.click();
    await page.getByRole('menuitemcheckbox').first().waitFor();
    await page.close();
  });

  it('offline when the Update Agent dialog is first opened: a toast, no dialog; back online, Edit opens it', async () => {
    const { page } = await agentsPage();
    const dialogChunk = /\/assets\/UpdateAgentDialog-[\w-]+\.js$/;
    await page.route(dialogChunk, (route) => route.abort('internetdisconnected'));
    await page.getByRole('button', { name: /Actions for Front desk/i }).click();
    await page.getByRole('menuitem', { name: 'Edit' }).click();
    await page.getByRole('alert').filter({ hasText: 'Could not open' }).waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);

    await page.unroute(dialogChunk);
    await page.getByRole('button', { name: /Actions for Front desk/i }).click();
    await page.getByRole('menuitem', { name: 'Edit' }).click();
    await page.getByRole('dialog').waitFor();
    expect(await page.getByRole('dialog').getByRole('textbox').first().inputValue()).toBe('Front desk');
    await page.close();
  });
});
