/** Deepgram: live speech-to-text (stt.ts). */
import { defineProvider } from '../descriptor.js';
import { createDeepgramStt } from './stt.js';

export const deepgram = defineProvider('deepgram', {
  url: { default: 'https://api.deepgram.com', env: 'DEEPGRAM_API_URL' },
  // List Projects (https://developers.deepgram.com/reference/manage/projects/list): GET /v1/projects with
  // `Authorization: Token <key>`; a wrong key is 401 {err_code: 'INVALID_AUTH', err_msg: 'Invalid credentials.'}
  // (https://developers.deepgram.com/docs/stt-troubleshooting-websocket-data-and-net-errors)
  keyCheck: {
    field: 'API Key',
    request: (v) => ({ method: 'GET', path: '/v1/projects', headers: { authorization: `Token ${v('API Key')}` } }),
  },
  create: () => ({ stt: createDeepgramStt() }),
});
