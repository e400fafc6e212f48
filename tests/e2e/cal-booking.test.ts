import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Agent } from '../../src/api/contract/agent/responses.js';
import { openBrowser, type TestBrowser } from './browser.js';
import { BOOKING_ATTENDEE, CAL_EVENT_TYPE_ID } from './provider-fakes.js';
import { type ApiUser, apiCall, signedInPage, signUpViaApi } from './session.js';

/**
 * Booking from Test LLM, in Chromium against the real server and the fake Cal.com (tests/fakes/calcom.ts,
 * reached through CAL_API_URL; see provider-fakes.ts): the tester connects Cal.com on the Providers page,
 * adds a Cal.com 'Check Availability' and 'Book Appointment' function in the editor, asks the agent to book
 * in Test LLM and sees both function calls with their results in the chat (the fake model checks the free
 * times, then books the first), then opens the chat in Call History and finds the same calls on its detail.
 */
let b: TestBrowser;
let page: Page;
let user: ApiUser;
let agentId = '';

const keys = () => inject('fakeKeys');

beforeAll(async () => {
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Cal Booker');
  // the voice providers the chat needs (not what this file checks) are connected on the API
  for (const [name, key] of [
    ['deepgram', keys().deepgram],
    ['openai', keys().openai],
    ['elevenlabs', keys().elevenlabs],
  ] as const) {
    const res = await apiCall(b.baseUrl, user, 'POST', '/provider/values', { name, keys: [{ name: 'API Key', value: key }] });
    expect([200, 201]).toContain(res.status);
  }
  const list = await apiCall<{ data: { agents: Agent[] } }>(b.baseUrl, user, 'GET', '/agent?page=1&limit=1');
  agentId = list.body.data.agents[0]?._id as string;
  page = await signedInPage(b, user);
  page.on('dialog', (d) => void d.accept());
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail')
    await page.screenshot({ path: `/tmp/cal-booking-${ctx.task.name.slice(0, 30)}.png` }).catch(() => {});
});

afterAll(async () => {
  await b?.close();
});

const section = () => page.getByRole('region', { name: 'Functions' });
const functionList = () => section().getByRole('list', { name: 'Functions' });

/** Adds a Cal.com function of `type` (its menu label) named `name` on the fake's event type, in Europe/London. */
async function addCalFunction(type: string, name: string) {
  await section().getByRole('button', { name: 'Add function' }).click();
  await page.getByRole('menuitem', { name: type, exact: true }).click();
  const dialog = page.getByRole('dialog', { name: `Add ${type} function` });
  await dialog.waitFor();
  // Cal.com is connected: no pointer to the Providers page
  expect(await dialog.getByRole('link', { name: 'Connect Cal.com on the Providers page' }).count()).toBe(0);
  await dialog.getByRole('textbox', { name: 'Name' }).fill(name);
  await dialog.getByRole('textbox', { name: 'Event type ID' }).fill(String(CAL_EVENT_TYPE_ID));
  await dialog.getByRole('combobox', { name: 'Time zone' }).fill('Europe/London');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'detached' });
  await functionList().getByText(`${type} · Event type ${CAL_EVENT_TYPE_ID} · Europe/London`).waitFor();
}

describe('booking on Cal.com from Test LLM', () => {
  it('connects Cal.com on the Providers page', async () => {
    await page.goto(b.url('/dashboard/providers'));
    const card = page.getByRole('article', { name: 'Cal.com' });
    await card.getByRole('button', { name: 'Connect' }).click();
    const dialog = page.getByRole('dialog', { name: 'Connect Cal.com' });
    await dialog.getByLabel('API Key', { exact: true }).fill(keys().calcom);
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await card.getByRole('button', { name: 'Edit' }).waitFor();
  });

  it('adds a check availability and a book function in the editor and saves the agent', async () => {
    await page.goto(b.url(`/dashboard/agents/${agentId}`));
    await functionList().getByText('end_call', { exact: true }).waitFor();
    await addCalFunction('Check Availability (Cal.com)', 'check_slots');
    await addCalFunction('Book Appointment (Cal.com)', 'book_slot');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Agent updated successfully!').waitFor();
  });

  it('asked to book, the chat shows the availability check and the booking with their results, then the answer', async () => {
    const day = keys().bookingDay;
    await page.getByRole('button', { name: 'Test LLM', exact: true }).click();
    const chat = page.getByRole('region', { name: 'Test LLM' });
    const log = chat.getByRole('log', { name: 'Chat with the agent' });
    const message = chat.getByRole('textbox', { name: 'Message' });
    await expect.poll(() => message.isEnabled()).toBe(true);
    await message.fill('Please book me a cleaning tomorrow');
    await chat.getByRole('button', { name: 'Send' }).click();

    const check = log.getByRole('group', { name: 'Function call check_slots' });
    await expect.poll(() => check.textContent()).toContain('Status: OK');
    expect(await check.textContent()).toContain(`Arguments: {"start_date":"${day}"}`);
    await check.getByRole('button', { name: 'Show result' }).click();
    // the fake Cal.com's free times, in the function's time zone
    await expect.poll(() => check.textContent()).toContain(`"free":{"${day}":["09:00","10:30"]}`);

    const book = log.getByRole('group', { name: 'Function call book_slot' });
    await expect.poll(() => book.textContent()).toContain('Status: OK');
    const args = JSON.stringify({ start: `${day}T09:00`, ...BOOKING_ATTENDEE });
    expect(await book.textContent()).toContain(`Arguments: ${args}`);
    expect(await book.textContent()).toMatch(/Duration: \d+ ms/);
    await book.getByRole('button', { name: 'Show result' }).click();
    // the booking the fake Cal.com made (its uid is bk_<id>_...)
    await expect.poll(() => book.textContent()).toMatch(/"booked":true,"id":\d+,"uid":"bk_\d+_\w+","status":"accepted"/);
    expect(await book.textContent()).toContain(`"start":"${day} 09:00"`);
    await log.getByText('The function answered: {"booked":true').waitFor();
    await chat.getByRole('button', { name: 'Close chat' }).click();
  });

  it("the chat's call in Call History shows both function calls on its detail", async () => {
    await page.getByRole('link', { name: 'Call History' }).first().click();
    const table = page.getByRole('table');
    // the company's only call is the chat
    await expect.poll(() => table.getByRole('row').filter({ hasText: /chat/i }).count()).toBe(1);
    await table.getByRole('row').filter({ hasText: /chat/i }).getByRole('link').click();
    const transcript = page.getByRole('list', { name: 'Transcript' });
    for (const name of ['check_slots', 'book_slot']) {
      const fn = transcript.getByRole('group', { name: `Function call ${name}` });
      await expect.poll(() => fn.textContent()).toContain('Status: OK');
      expect(await fn.textContent()).toMatch(/Duration: \d+ ms/);
    }
    const book = transcript.getByRole('group', { name: 'Function call book_slot' });
    await book.getByRole('button', { name: 'Show result' }).click();
    await expect.poll(() => book.textContent()).toContain('"booked":true');
  });
});
