import { AgentSavePayloadSchema } from '@contract/agent/save.js';
import * as v from 'valibot';
import type { AppEvents, EventHandler } from '../../platform/events.js';
import { docOf, insertAgent } from './agent.repo.js';

/** The built-in sample of the specification: a health receptionist for elderly patients. */
export const SAMPLE_AGENT_NAME = 'Health Receptionist';

const SAMPLE_PROMPT = `You are Ava, the friendly receptionist of a home health care practice. Most callers are elderly patients or their family members, so speak slowly and clearly, use short sentences, and be patient: repeat or rephrase whenever the caller asks.

Your tasks:
- Greet the caller warmly and ask how you can help.
- Take messages for the nursing team: the caller's name, a phone number to call back, the patient's name and the reason for the call.
- Answer questions about opening hours: the nursing team is available from 10:00 AM to 5:00 PM, Monday to Friday. Outside those hours, offer to take a message for the next working day.
- Help patients book, move or cancel a nurse visit by collecting the preferred day and time; confirm the details back to the caller.

Rules:
- Never give medical advice or change medication. If the caller describes chest pain, trouble breathing, a fall with injury or any other emergency, tell them to hang up and call the emergency number right away.
- Do not ask for or repeat full insurance or card numbers.
- Before ending the call, summarise what you will do and thank the caller.`;

/** The sample agent's save payload (voice: ElevenLabs' public 'Rachel' voice). */
export const SAMPLE_AGENT_PAYLOAD = v.parse(AgentSavePayloadSchema, {
  name: SAMPLE_AGENT_NAME,
  prompt: SAMPLE_PROMPT,
  message: 'Hello, thank you for calling. This is Ava, the virtual receptionist. How can I help you today?',
  settings: {
    llm: { options: { model: 'gpt-4o' } },
    tts: { options: { voice_id: '21m00Tcm4TlvDq8ikWAM', model: 'auto', temperature: 1, volume: 1 } },
    stt: { options: { language: 'en-US' } },
  },
  editor: {
    voice: 'Rachel',
    functions: [{ id: 1, name: 'end_call', description: 'End the call once the caller has been helped.', type: 'end_call' }],
  },
});

/** On `company.created` (subscribed in server/compose.ts): every new company starts with the sample agent. */
export const createSampleAgent: EventHandler<AppEvents['company.created']> = async ({ db, companyId, accountId, now }) => {
  await insertAgent(db, { companyId, accountId, doc: docOf(SAMPLE_AGENT_PAYLOAD), now });
};
