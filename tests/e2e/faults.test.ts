import type { Page, Route } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_AGENT_PAYLOAD } from '../../server/modules/agents/sample-agent.js';
import type { Agent, AgentListItem } from '../../src/api/contract/agent/responses.js';
import { expectOnlyLocalRequests, openBrowser, type TestBrowser } from './browser.js';
import { type ApiUser, apiCall, createNumberViaApi, signedInPage, signUpViaApi } from './session.js';

/**
 * Browser faults (docs/reliability.md): the network fails in the middle of a save. Two faults:
 * - `cut`: the request never reaches the server (Playwright aborts it, as a dropped connection does);
 * - `lost`: the request reaches the server and is answered, but the answer never reaches the page.
 * Each time the user sees an error, what they typed is still there, saving again succeeds, and the
 * server holds exactly one new row (the Idempotency-Key of the action makes the retry of a `lost`
 * request an answer, not a second create or a version conflict).
 */

const NETWORK_ERROR = 'Could not reach the server. Check your connection and try again.';

let b: TestBrowser;
let user: ApiUser;
let page: Page;
/** method and path of every API write the page sent, with its Idempotency-Key */
const writes: { method: string; path: string; key: string | undefined }[] = [];

beforeAll(async () => {
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Faye Faults');
  await createNumberViaApi(b.baseUrl, user, '+14155550181');
  page = await signedInPage(b, user);
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/api/') && r.method() !== 'GET')
      writes.push({ method: r.method(), path: url.pathname, key: r.headers()['idempotency-key'] });
  });
});

afterEach(async (ctx) => {
  await page.unrouteAll({ behavior: 'ignoreErrors' });
  if (ctx.task.result?.state === 'fail')
    await page.screenshot({ path: `/tmp/faults-${ctx.task.name.slice(0, 30)}.png` }).catch(() => {});
});

afterAll(async () => {
  await b?.close();
});

type Fault = 'cut' | 'lost';

/**
 * Makes the next `method` request to `path` fail with `fault`; later requests go through. Resolves, via
 * `reached`, once the faulty request has been dealt with.
 */
async function failNext(method: string, path: RegExp, fault: Fault) {
  let done: () => void = () => {};
  const reached = new Promise<void>((resolve) => {
    done = resolve;
  });
  let armed = true;
  await page.route(
    (url) => path.test(url.pathname),
    async (route: Route) => {
      if (!armed || route.request().method() !== method) return route.fallback();
      armed = false;
      if (fault === 'lost') {
        const answer = await route.fetch(); // the server does the work and answers...
        expect(answer.status()).toBeLessThan(300);
      }
      await route.abort(fault === 'lost' ? 'connectionreset' : 'internetdisconnected'); // ...the page never hears
      done();
    },
  );
  return { reached };
}

const notification = (text: string) => page.getByRole('region', { name: 'Notifications' }).getByText(text, { exact: true });
const heading = () => page.getByRole('heading', { level: 1 });
const pathOf = () => new URL(page.url()).pathname;

async function agentsNamed(name: string): Promise<AgentListItem[]> {
  const res = await apiCall<{ data: { agents: AgentListItem[] } }>(
    b.baseUrl,
    user,
    'GET',
    `/agent?search=${encodeURIComponent(name)}&limit=100`,
  );
  expect(res.status).toBe(200);
  return res.body.data.agents.filter((a) => a.agent_name === name);
}

async function getAgent(id: string): Promise<Agent> {
  const res = await apiCall<{ data: { agent: Agent } }>(b.baseUrl, user, 'GET', `/agent/${id}`);
  expect(res.status).toBe(200);
  return res.body.data.agent;
}

async function createAgentViaApi(name: string): Promise<Agent> {
  const res = await apiCall<{ data: { agent: Agent } }>(b.baseUrl, user, 'POST', '/agent', { ...SAMPLE_AGENT_PAYLOAD, name });
  expect(res.status).toBe(201);
  return res.body.data.agent;
}

/** Empties the editor's drafts (IndexedDB myDatabase / myStore) of this origin. */
async function clearDrafts() {
  await page.goto(b.url('/dashboard'));
  await page.evaluate(
    () =>
      new Promise<void>((resolve, reject) => {
        const req = indexedDB.open('myDatabase', 1);
        req.onupgradeneeded = () => req.result.createObjectStore('myStore', { keyPath: 'id' });
        req.onerror = () => reject(req.error);
        req.onsuccess = () => {
          const tx = req.result.transaction('myStore', 'readwrite');
          tx.objectStore('myStore').clear();
          tx.oncomplete = () => {
            req.result.close();
            resolve();
          };
          tx.onerror = () => reject(tx.error);
        };
      }),
  );
}

const keysOf = (method: string, path: string) => writes.filter((w) => w.method === method && w.path === path).map((w) => w.key);

describe.each<Fault>(['cut', 'lost'])('network fault while saving: %s', (fault) => {
  it('agent editor, new agent: an error, the input kept, Save again creates exactly one agent', async () => {
    const name = `Editor create ${fault}`;
    await page.goto(b.url('/dashboard/agents/single-prompt'));
    await expect.poll(() => heading().textContent()).toBe('New Agent');
    await page.getByRole('button', { name: 'Edit agent name' }).click();
    await page.getByRole('textbox', { name: 'Agent name' }).fill(name);
    await page.getByRole('textbox', { name: 'Agent name' }).press('Enter');
    await page.getByRole('combobox', { name: 'Voice', exact: true }).click();
    await page.getByRole('option', { name: /^Rachel/ }).click();
    const prompt = page.getByRole('textbox', { name: 'Prompt' });
    await prompt.fill(`You answer the phone (${fault}).`);

    const { reached } = await failNext('POST', /^\/api\/v1\/agent\/?$/, fault);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await reached;
    await notification(NETWORK_ERROR).waitFor();
    // still on the editor with every edit
    expect(pathOf()).toBe('/dashboard/agents/single-prompt');
    expect(await heading().textContent()).toBe(name);
    expect(await prompt.inputValue()).toBe(`You answer the phone (${fault}).`);
    expect(await agentsNamed(name)).toHaveLength(fault === 'lost' ? 1 : 0);

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await notification('New agent created successfully!').waitFor();
    await expect.poll(() => pathOf()).toMatch(/^\/dashboard\/?$/);
    const created = await agentsNamed(name);
    expect(created).toHaveLength(1);
    expect((await getAgent(created[0]!._id)).prompt).toBe(`You answer the phone (${fault}).`);
    // both attempts were one action: the same Idempotency-Key
    const keys = keysOf('POST', '/api/v1/agent').slice(-2);
    expect(keys[0]).toBeTruthy();
    expect(keys[1]).toBe(keys[0]);
  });

  it('agent editor, existing agent: an error, the edit kept, Save again updates once', async () => {
    const agent = await createAgentViaApi(`Editor update ${fault}`);
    await page.goto(b.url(`/dashboard/agents/${agent._id}`));
    const welcome = page.getByRole('textbox', { name: 'Welcome Message' });
    await expect.poll(() => heading().textContent()).toBe(agent.agent_name);
    await welcome.fill(`Hello from the ${fault} test.`);

    const { reached } = await failNext('PUT', new RegExp(`^/api/v1/agent/${agent._id}$`), fault);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await reached;
    await notification(NETWORK_ERROR).waitFor();
    expect(await welcome.inputValue()).toBe(`Hello from the ${fault} test.`);

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    // a lost answer is replayed for the retry: no 'Agent changed elsewhere' for the version it bumped itself
    await notification('Agent updated successfully!').waitFor();
    expect(await page.getByText('Agent changed elsewhere').count()).toBe(0);
    const saved = await getAgent(agent._id);
    expect(saved.message).toBe(`Hello from the ${fault} test.`);
    expect(saved.version).toBe(agent.version + 1);
  });

  it('Update Agent dialog: an error, the dialog and its input kept, Save changes again updates once', async () => {
    const agent = await createAgentViaApi(`Dialog ${fault}`);
    await page.goto(b.url(`/dashboard?search=${encodeURIComponent(agent.agent_name)}`));
    await page.getByRole('button', { name: `Actions for ${agent.agent_name}` }).click();
    await page.getByRole('menuitem', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Update Agent' });
    await dialog.getByLabel('Voice ID').fill(`voice-${fault}`);

    const { reached } = await failNext('PUT', new RegExp(`^/api/v1/agent/${agent._id}$`), fault);
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await reached;
    await notification('Failed to update agent').waitFor();
    expect(await dialog.isVisible()).toBe(true);
    expect(await dialog.getByLabel('Voice ID').inputValue()).toBe(`voice-${fault}`);

    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await notification('The agent has been updated successfully.').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    const saved = await getAgent(agent._id);
    expect(saved.settings.tts.options.voice_id).toBe(`voice-${fault}`);
    expect(saved.version).toBe(agent.version + 1);
  });

  it('provider Connect and Update dialogs: an error, the input kept, the retry connects once', async () => {
    // two-field cards whose API this run does not reach (no PLIVO_API_URL, WHATSAPP_API_URL): Connect cannot try
    // the made-up keys, so it saves them with a warning (Twilio's fake would refuse them)
    const provider = fault === 'cut' ? { name: 'whatsapp', label: 'WhatsApp' } : { name: 'plivo', label: 'Plivo' };
    const fields = fault === 'cut' ? ['Phone Number ID', 'Access Token'] : ['Auth ID', 'Auth Token'];
    await page.goto(b.url(`/dashboard/providers?search=${provider.label}`));
    const card = page.getByRole('article', { name: provider.label });
    await card.getByRole('button', { name: 'Connect' }).click();
    const dialog = page.getByRole('dialog', { name: `Connect ${provider.label}` });
    await dialog.getByLabel(fields[0]!, { exact: true }).fill(`ID-${fault}-0123456789`);
    await dialog.getByLabel(fields[1]!, { exact: true }).fill(`secret-${fault}-0123456789`);

    const connect = await failNext('POST', /^\/api\/v1\/provider\/values$/, fault);
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await connect.reached;
    await notification('Failed to connect the provider. Please try again.').waitFor();
    expect(await dialog.getByLabel(fields[0]!, { exact: true }).inputValue()).toBe(`ID-${fault}-0123456789`);
    expect(await dialog.getByLabel(fields[1]!, { exact: true }).inputValue()).toBe(`secret-${fault}-0123456789`);

    // the retry of a connect that did happen is answered as connected, not 'already connected'
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await notification(`${provider.label} has been successfully connected.`).waitFor();
    await dialog.waitFor({ state: 'detached' });
    const keys = keysOf('POST', '/api/v1/provider/values').slice(-2);
    expect(keys[1]).toBe(keys[0]);
    const status = await apiCall<{ data: { name: string; connected: boolean }[] }>(b.baseUrl, user, 'GET', '/provider?name=');
    expect(status.body.data.find((p) => p.name === provider.name)?.connected).toBe(true);

    // Update: the same story for PUT /provider/{id}
    await card.getByRole('button', { name: 'Edit' }).click();
    const update = page.getByRole('dialog', { name: `Update ${provider.label}` });
    const secret = update.getByLabel(fields[1]!, { exact: true });
    await expect.poll(() => secret.inputValue()).not.toBe('');
    await secret.fill(`rotated-${fault}-9876543210`);
    const put = await failNext('PUT', /^\/api\/v1\/provider\/[^/]+$/, fault);
    await update.getByRole('button', { name: 'Update' }).click();
    await put.reached;
    await notification('Failed to update the provider. Please try again.').waitFor();
    expect(await secret.inputValue()).toBe(`rotated-${fault}-9876543210`);
    await update.getByRole('button', { name: 'Update' }).click();
    await notification(`${provider.label} has been updated.`).waitFor();
    await update.waitFor({ state: 'detached' });
    const stored = await apiCall<{ keys: { name: string; value: string }[] }>(
      b.baseUrl,
      user,
      'GET',
      `/provider/fields?name=${provider.name}`,
    );
    expect(stored.body.keys.find((k) => k.name === fields[1])?.value).toMatch(/3210$/);
  });
});

describe.each<Fault>(['cut', 'lost'])('network fault while creating: %s', (fault) => {
  it('knowledge-base upload (multipart): the reason in the dialog, the entries kept, Upload again creates one', async () => {
    const name = `Faulty FAQ ${fault}`;
    // the upload selects the base for the new agent, an unsaved edit: a draft of an earlier run would be offered
    await clearDrafts();
    await page.goto(b.url('/dashboard/agents/single-prompt'));
    await page.getByRole('button', { name: 'Upload a knowledge base' }).click();
    const upload = page.getByRole('dialog', { name: 'Upload a knowledge base' });
    await upload.getByRole('textbox', { name: 'Knowledge base name' }).fill(name);
    await upload
      .getByLabel('Files')
      .setInputFiles([
        { name: 'faq.md', mimeType: 'text/markdown', buffer: Buffer.from(`# FAQ\n\nParking is free (${fault}).`) },
      ]);

    const { reached } = await failNext('POST', /^\/api\/v1\/knowledge-base\/?$/, fault);
    await upload.getByRole('button', { name: 'Upload' }).click();
    await reached;
    await upload.getByText(NETWORK_ERROR).waitFor();
    expect(await upload.getByRole('textbox', { name: 'Knowledge base name' }).inputValue()).toBe(name);

    await upload.getByRole('button', { name: 'Upload' }).click();
    await expect.poll(() => upload.count()).toBe(0);
    const list = await apiCall<{ data: { knowledge_bases: { knowledge_base_name: string }[] } }>(
      b.baseUrl,
      user,
      'GET',
      '/knowledge-base?limit=100',
    );
    expect(list.body.data.knowledge_bases.filter((kb) => kb.knowledge_base_name === name)).toHaveLength(1);
    const keys = keysOf('POST', '/api/v1/knowledge-base').slice(-2);
    expect(keys[1]).toBe(keys[0]);
  });

  it('batch call saved as draft: the error, the form kept, Save as draft again creates one batch', async () => {
    const name = `Reminders ${fault}`;
    await page.goto(b.url('/dashboard/batch-call'));
    await page.getByRole('button', { name: 'Create a batch call' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Create a batch call' });
    await expect.poll(() => dialog.getByRole('combobox', { name: 'From number' }).textContent()).toContain('+14155550181');
    await dialog.getByRole('textbox', { name: 'Batch Call Name' }).fill(name);

    const { reached } = await failNext('POST', /^\/api\/v1\/batch-call\/?$/, fault);
    await dialog.getByRole('button', { name: 'Save as draft' }).click();
    await reached;
    await notification(NETWORK_ERROR).waitFor();
    expect(await dialog.isVisible()).toBe(true);
    expect(await dialog.getByRole('textbox', { name: 'Batch Call Name' }).inputValue()).toBe(name);

    await dialog.getByRole('button', { name: 'Save as draft' }).click();
    await notification('Batch call saved').waitFor();
    await dialog.waitFor({ state: 'detached' });
    const list = await apiCall<{ data: { batches: { name: string }[] } }>(b.baseUrl, user, 'GET', '/batch-call?limit=100');
    expect(list.body.data.batches.filter((x) => x.name === name)).toHaveLength(1);
  });
});

describe('after the faults', () => {
  it('no request left 127.0.0.1 and no page error', () => {
    expectOnlyLocalRequests(b.requests);
    expect(b.pageErrors).toEqual([]);
  });
});
