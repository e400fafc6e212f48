import { VoicePreviewBodySchema } from '@contract/call-runtime.js';
import { type ElevenLabsVoiceState, VOICE_MESSAGES, type Voice } from '@contract/voice.js';
import { Hono } from 'hono';
import type { AppDeps } from '../../platform/deps.js';
import { jsonBody, ok } from '../../platform/http/http.js';
import type { AppEnv } from '../../platform/http/types.js';
import { requireAuth } from '../auth/index.js';
import { callRuntime, previewVoice } from '../conversations/index.js';
import { getProviderSecret } from '../providers/index.js';
import { BUILTIN_VOICES } from './voice.catalogue.js';
import { ElevenLabsError, fetchElevenLabsVoices } from './voice.elevenlabs.js';

/** The ElevenLabs provider's credential field (src/api/contract/provider.ts). */
const ELEVENLABS_KEY_FIELD = 'API Key';

/**
 * GET /voices (and its alias GET /provider/voices): the connected ElevenLabs account's voices first, then
 * the built-in catalogue (a voice id listed by both appears once, as the account's). When the account
 * cannot be read, the catalogue still answers and `notice` says why. The key is never logged or returned.
 */
export function voiceRoutes(deps: AppDeps) {
  const r = new Hono<AppEnv>();
  r.use('*', requireAuth(deps));
  r.get('/', async (c) => {
    const { companyId } = c.get('auth');
    let state: ElevenLabsVoiceState = 'not_connected';
    let notice: string | undefined;
    let account: Voice[] = [];
    let key: string | null = null;
    try {
      key = await getProviderSecret(deps, companyId, 'elevenlabs', ELEVENLABS_KEY_FIELD);
    } catch {
      state = 'unavailable';
      notice = VOICE_MESSAGES.rejectedKey;
    }
    if (key) {
      try {
        account = await fetchElevenLabsVoices(deps, key);
        state = 'connected';
      } catch (e) {
        state = 'unavailable';
        const rejected = e instanceof ElevenLabsError && e.kind === 'rejected';
        notice = rejected ? VOICE_MESSAGES.rejectedKey : VOICE_MESSAGES.unreachable;
        deps.logger.warn('elevenlabs voices unavailable', { companyId, reason: rejected ? 'rejected' : 'unreachable' });
      }
    }
    const seen = new Set(account.map((voice) => voice.voice_id));
    const voices = [...account, ...BUILTIN_VOICES.filter((voice) => !seen.has(voice.voice_id))];
    return ok(c, { voices, elevenlabs: state, ...(notice ? { notice } : {}) });
  });

  /** Test Audio: the agent's voice saying a sentence (or its welcome message), as audio/wav. */
  r.post('/preview', async (c) => {
    const rt = callRuntime(deps);
    const auth = c.get('auth');
    const body = await jsonBody(c, VoicePreviewBodySchema);
    const wav = await previewVoice(deps, rt, { companyId: auth.companyId, accountId: auth.accountId }, body);
    return c.body(new Uint8Array(wav), 200, { 'Content-Type': 'audio/wav', 'Cache-Control': 'no-store' });
  });
  return r;
}
