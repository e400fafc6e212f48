import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../src/api/contract/agent/responses.js';
import { makePdf } from '../fixtures/pdf.js';
import { expectOnlyLocalRequests, openBrowser, type TestBrowser } from './browser.js';
import { type ApiUser, apiCall, signedInPage, signUpViaApi } from './session.js';

let b: TestBrowser;
let user: ApiUser;
let page: Page;
let agentId = '';
const dialogs: string[] = [];

beforeAll(async () => {
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Editor Tester');
  page = await signedInPage(b, user);
  // a reload with unsaved edits raises the browser's leave-page prompt: record it and leave
  page.on('dialog', (d) => {
    dialogs.push(d.type());
    void (d.type() === 'beforeunload' ? d.accept() : d.dismiss());
  });
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail')
    await page.screenshot({ path: `/tmp/agent-editor-${ctx.task.name.slice(0, 30)}.png` }).catch(() => {});
});

afterAll(async () => {
  await b?.close();
});

const pathOf = (p: Page) => new URL(p.url()).pathname;
const heading = () => page.getByRole('heading', { level: 1 });

async function getAgent(id: string): Promise<Agent> {
  const res = await apiCall<{ data: { agent: Agent } }>(b.baseUrl, user, 'GET', `/agent/${id}`);
  expect(res.status).toBe(200);
  return res.body.data.agent;
}

/** Drafts in IndexedDB (myDatabase / myStore), read in the page. */
const draftIds = () =>
  page.evaluate(
    () =>
      new Promise<string[]>((resolve, reject) => {
        const req = indexedDB.open('myDatabase', 1);
        req.onupgradeneeded = () => req.result.createObjectStore('myStore', { keyPath: 'id' });
        req.onerror = () => reject(req.error);
        req.onsuccess = () => {
          const keys = req.result.transaction('myStore', 'readonly').objectStore('myStore').getAllKeys();
          keys.onsuccess = () => {
            req.result.close();
            resolve((keys.result as string[]).map(String));
          };
        };
      }),
  );

describe('agent editor in Chromium', () => {
  it('builds a new agent: name, validation, voice, prompt, function, pronunciation, voicemail', async () => {
    await page.goto(b.url('/dashboard/agents/single-prompt'));
    await expect.poll(() => heading().textContent()).toBe('New Agent');
    await page.getByText('Single prompt').waitFor();
    await page.getByText('$0.081/min').waitFor();
    await page.getByText('1150-1400ms latency').waitFor();

    // a blank name is ignored; Enter commits
    await page.getByRole('button', { name: 'Edit agent name' }).click();
    await page.getByRole('textbox', { name: 'Agent name' }).fill('   ');
    await page.getByRole('textbox', { name: 'Agent name' }).press('Enter');
    await expect.poll(() => heading().textContent()).toBe('New Agent');
    await page.getByRole('button', { name: 'Edit agent name' }).click();
    await page.getByRole('textbox', { name: 'Agent name' }).fill('E2E Receptionist');
    await page.getByRole('textbox', { name: 'Agent name' }).press('Enter');
    await expect.poll(() => heading().textContent()).toBe('E2E Receptionist');

    // Save without a voice: the spec's message next to the picker, which gets the focus
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Voice is required').waitFor();
    const voice = page.getByRole('combobox', { name: 'Voice', exact: true });
    await expect.poll(() => voice.getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => voice.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(pathOf(page)).toBe('/dashboard/agents/single-prompt');

    await voice.click();
    await page.getByRole('option', { name: /^Rachel/ }).click();
    await expect.poll(() => page.getByText('Voice is required').count()).toBe(0);

    // model price in the header follows the model
    await page.getByRole('combobox', { name: 'LLM Model' }).click();
    await page.getByRole('option', { name: /^Claude 3\.5 Haiku/ }).click();
    await page.getByText('$0.051/min').waitFor();
    await page.getByRole('combobox', { name: 'LLM Model' }).click();
    await page.getByRole('option', { name: /^GPT 4o\s*\$0\.05/ }).click();
    await page.getByText('$0.081/min').waitFor();

    await page.getByRole('textbox', { name: 'Prompt' }).fill('You are the receptionist of a clinic for elderly patients.');
    await page.getByRole('textbox', { name: 'Welcome Message' }).fill('Hello, North Clinic.');

    // a function: the menu item is disabled once present
    await page.getByRole('button', { name: 'Add function' }).click();
    await page.getByRole('menuitem', { name: 'End Call' }).click();
    const fnDialog = page.getByRole('dialog', { name: 'Add End Call function' });
    await fnDialog.getByRole('textbox', { name: 'Name' }).fill('hang_up');
    await fnDialog.getByRole('textbox', { name: 'Description (optional)' }).fill('End politely');
    await fnDialog.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('list', { name: 'Functions' }).getByText('hang_up').waitFor();
    await page.getByRole('button', { name: 'Add function' }).click();
    await expect.poll(() => page.getByRole('menuitem', { name: 'End Call' }).getAttribute('aria-disabled')).toBe('true');
    await page.keyboard.press('Escape');

    // a pronunciation, then edited
    await page.getByRole('button', { name: 'Add pronunciation' }).click();
    const addDialog = page.getByRole('dialog', { name: 'Add Pronunciation' });
    await addDialog.getByRole('textbox', { name: 'Word' }).fill('Parley');
    await addDialog.getByRole('textbox', { name: 'Phoneme' }).fill('ˈpɑrli');
    await addDialog.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('button', { name: 'Edit pronunciation of Parley' }).click();
    const editDialog = page.getByRole('dialog', { name: 'Edit Pronunciation' });
    await editDialog.getByRole('textbox', { name: 'Phoneme' }).fill('ˈpɑːrli');
    await editDialog.getByRole('button', { name: 'Update' }).click();
    await page.getByRole('list', { name: 'Pronunciations' }).getByText('IPA · ˈpɑːrli').waitFor();

    // voicemail detection (on by default): its fields show only while it is on
    const voicemail = page.getByRole('switch', { name: /^Voicemail Detection/ });
    expect(await voicemail.isChecked()).toBe(true);
    await voicemail.uncheck();
    await expect.poll(() => page.getByRole('textbox', { name: 'Voicemail Message' }).count()).toBe(0);
    await voicemail.check();
    await page.getByRole('textbox', { name: 'Voicemail Message' }).fill('Hi {{name}}, please call us back.');

    // conditional backchannel fields
    const backchannel = page.getByRole('switch', { name: /^Backchanneling/ });
    await backchannel.uncheck();
    await expect.poll(() => page.getByRole('slider', { name: 'Backchannel Frequency' }).count()).toBe(0);
    await backchannel.check();
    await page.getByRole('slider', { name: 'Backchannel Frequency' }).waitFor();
  });

  it('adds a dynamic variable and uploads a knowledge base that the server processes to complete', async () => {
    await page.getByRole('button', { name: 'Dynamic Variables' }).click();
    const vars = page.getByRole('dialog', { name: 'Dynamic Variables' });
    // two empty rows by default
    await vars.getByRole('textbox', { name: 'Variable name 2' }).waitFor();
    await vars.getByRole('textbox', { name: 'Variable name 1' }).fill('name');
    await vars.getByRole('textbox', { name: 'Test value 1' }).fill('Ada');
    await vars.getByRole('button', { name: 'Save' }).click();
    await page.getByText('1 variable set.').waitFor();

    await page.getByRole('button', { name: 'Upload a knowledge base' }).click();
    const upload = page.getByRole('dialog', { name: 'Upload a knowledge base' });
    await upload.getByRole('textbox', { name: 'Knowledge base name' }).fill('Clinic FAQ');
    // a file that is not what its name says is refused with the server's reason; the entries stay
    await upload
      .getByLabel('Files')
      .setInputFiles([{ name: 'fake.pdf', mimeType: 'application/pdf', buffer: Buffer.from('not a pdf') }]);
    await upload.getByRole('button', { name: 'Upload' }).click();
    await upload.getByText('fake.pdf is not a PDF file').waitFor();
    await upload.getByLabel('Files').setInputFiles([
      { name: 'hours.pdf', mimeType: 'application/pdf', buffer: makePdf([['Nursing team hours: 10:00 AM to 5:00 PM']]) },
      { name: 'faq.md', mimeType: 'text/markdown', buffer: Buffer.from('# FAQ\n\nParking is free.') },
    ]);
    await upload.getByRole('button', { name: 'Upload' }).click();
    await expect.poll(() => upload.count()).toBe(0);
    const kbs = page.getByRole('list', { name: 'Knowledge bases' });
    const kb = kbs.getByRole('checkbox', { name: /^Clinic FAQ/ });
    await expect.poll(() => kb.isChecked()).toBe(true);
    await expect.poll(() => kbs.getByText('Complete').count(), { timeout: 20_000 }).toBe(1);
  });

  it('the test buttons try the unsaved agent: without a connected LLM, Test LLM names the provider to connect', async () => {
    for (const name of ['Test Audio', 'Test LLM', 'Test'])
      expect(await page.getByRole('button', { name, exact: true }).isEnabled()).toBe(true);
    await page.getByRole('button', { name: 'Test LLM', exact: true }).click();
    const chat = page.getByRole('region', { name: 'Test LLM' });
    const problem = chat.getByRole('alert');
    await expect.poll(() => problem.textContent(), { timeout: 10_000 }).toMatch(/OpenAI/);
    const open = chat.getByRole('link', { name: 'Open Providers' });
    expect(await open.getAttribute('href')).toBe('/dashboard/providers');
    // the message ends as a sentence and the link sits on its own line, underlined: it does not run into it
    expect(await problem.textContent()).toMatch(/^Connect OpenAI on the Providers page to use .+\.\s*Open Providers$/);
    expect(await open.evaluate((a) => [getComputedStyle(a).display, getComputedStyle(a).textDecorationLine])).toEqual([
      'block',
      'underline',
    ]);
    await chat.getByRole('button', { name: 'Close chat' }).click();
    await expect.poll(() => chat.count()).toBe(0);
  });

  it('Call me: a phone number and a button in the right column; an unsaved agent says to save first', async () => {
    const form = page.getByRole('form', { name: 'Call me' });
    const field = form.getByRole('textbox', { name: 'Phone number' });
    await field.fill('+14155550123');
    await form.getByRole('button', { name: 'Call me' }).click();
    await expect.poll(() => form.getByText('Save the agent first.').count()).toBe(1);
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    // editing the number clears the message
    await field.fill('+14155550124');
    await expect.poll(() => form.getByText('Save the agent first.').count()).toBe(0);
    await field.fill('');
  });

  it('saves: the create toast, back to /dashboard, and the agent holds every field', async () => {
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('New agent created successfully!').waitFor();
    await expect.poll(() => pathOf(page)).toMatch(/^\/dashboard\/?$/);
    // the list on /dashboard shows the new agent (the cached list was invalidated by the create)
    await page.getByRole('table', { name: 'Agents' }).getByRole('cell', { name: 'E2E Receptionist', exact: true }).waitFor();
    const list = await apiCall<{ data: { agents: Agent[] } }>(b.baseUrl, user, 'GET', '/agent?search=E2E');
    expect(list.body.data.agents.map((a) => a.agent_name)).toEqual(['E2E Receptionist']);
    agentId = list.body.data.agents[0]?._id as string;
    const agent = await getAgent(agentId);
    expect(agent.prompt).toBe('You are the receptionist of a clinic for elderly patients.');
    expect(agent.message).toBe('Hello, North Clinic.');
    expect(agent.settings).toMatchObject({
      llm: { service: 'openai', options: { model: 'gpt-4o' } },
      tts: {
        service: 'elevenlabs',
        options: { voice_id: '21m00Tcm4TlvDq8ikWAM', model: 'auto', stability: 0.5, similarity: 0.75 },
      },
      stt: { service: 'deepgram', options: { language: 'en-US', model: 'nova-2' } },
    });
    expect(agent.editor).toMatchObject({
      voice: 'Rachel',
      functions: [{ name: 'hang_up', description: 'End politely', type: 'end_call' }],
      pronunciations: [{ word: 'Parley', type: 'IPA', phoneme: 'ˈpɑːrli' }],
      voicemailDetection: true,
      voicemailMessage: 'Hi {{name}}, please call us back.',
      dynamicVariables: [{ name: 'name', value: 'Ada' }],
      selectedKnowledgeBases: [{ knowledge_base_name: 'Clinic FAQ', enable_auto_refresh: false }],
    });
    expect(agent.version).toBe(1);
    expect(await draftIds()).toEqual([]);
  });

  it('reopens the agent, keeps a draft through a reload, restores it and saves the update', async () => {
    await page.goto(b.url(`/dashboard/agents/${agentId}`));
    await expect.poll(() => heading().textContent()).toBe('E2E Receptionist');
    const prompt = page.getByRole('textbox', { name: 'Prompt' });
    await expect.poll(() => prompt.inputValue()).toBe('You are the receptionist of a clinic for elderly patients.');
    expect(await page.getByRole('switch', { name: /^Voicemail Detection/ }).isChecked()).toBe(true);
    expect(
      await page
        .getByRole('list', { name: 'Knowledge bases' })
        .getByRole('checkbox', { name: /^Clinic FAQ/ })
        .isChecked(),
    ).toBe(true);

    await prompt.fill('Changed prompt, not saved yet.');
    await expect.poll(() => draftIds(), { timeout: 5000 }).toEqual([agentId]);
    await page.reload();
    expect(dialogs).toContain('beforeunload');
    const restore = page.getByRole('alertdialog', { name: 'Restore unsaved changes?' });
    await restore.getByRole('button', { name: 'Restore' }).click();
    await expect.poll(() => page.getByRole('textbox', { name: 'Prompt' }).inputValue()).toBe('Changed prompt, not saved yet.');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Agent updated successfully!').waitFor();
    expect(pathOf(page)).toBe(`/dashboard/agents/${agentId}`);
    const agent = await getAgent(agentId);
    expect(agent.prompt).toBe('Changed prompt, not saved yet.');
    expect(agent.version).toBe(2);
    expect(await draftIds()).toEqual([]);
  });

  it('asks before leaving with unsaved edits; Stay keeps them, Leave drops them', async () => {
    await page.getByRole('textbox', { name: 'Prompt' }).fill('Edited again');
    await page.getByRole('link', { name: 'Back to agents' }).click();
    const guard = page.getByRole('alertdialog', { name: 'Leave without saving?' });
    await guard.getByRole('button', { name: 'Stay' }).click();
    expect(pathOf(page)).toBe(`/dashboard/agents/${agentId}`);
    expect(await page.getByRole('textbox', { name: 'Prompt' }).inputValue()).toBe('Edited again');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Billing' }).click();
    await guard.getByRole('button', { name: 'Leave' }).click();
    await expect.poll(() => pathOf(page)).toBe('/dashboard/billing');
    expect(await draftIds()).toEqual([]);
    expect((await getAgent(agentId)).prompt).toBe('Changed prompt, not saved yet.');
  });

  it('shows a not-found state for an unknown id, with a link back', async () => {
    await page.goto(b.url('/dashboard/agents/0123456789abcdef01234567'));
    await page.getByRole('heading', { name: 'Agent not found' }).waitFor();
    await page.getByRole('link', { name: 'Back to agents' }).click();
    await expect.poll(() => pathOf(page)).toMatch(/^\/dashboard\/?$/);
  });

  it('signing out removes every draft', async () => {
    await page.goto(b.url(`/dashboard/agents/${agentId}`));
    await page.getByRole('textbox', { name: 'Prompt' }).fill('A draft that must not outlive the session');
    await expect.poll(() => draftIds(), { timeout: 5000 }).toEqual([agentId]);
    await page.getByRole('button', { name: 'Logout' }).click();
    await expect.poll(() => pathOf(page)).toBe('/');
    await expect.poll(() => draftIds()).toEqual([]);
    expect(b.pageErrors).toEqual([]);
    expectOnlyLocalRequests(b.requests);
  });
});
