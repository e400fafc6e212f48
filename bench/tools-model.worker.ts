/**
 * The model and the company's API of the tools bench (bench/tools.ts), on a thread of their own: the OpenAI
 * fake (it answers every caller turn with a call to the function, then the function's result with a short
 * sentence) and the company's API (tests/fakes/customer-api.ts, which checks each request's
 * X-Parley-Signature). On the bench's main thread, the callers' real-time audio and the speech fakes keep
 * the event loop busy; the moments measured here (the tool call written, the API's request received, the
 * continuation received) would carry that thread's delays and make the server look slower than it is.
 *
 * Moments are sent to the main thread as epoch milliseconds (performance.timeOrigin + performance.now(),
 * one clock for both threads).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { CustomerApi } from '../tests/fakes/customer-api.js';
import { startFakeOpenAi } from '../tests/fakes/openai.js';

export type ModelMessage =
  | { type: 'ready'; openaiUrl: string; openaiKey: string; customerUrl: string }
  | { type: 'turn'; ref: string; run: string; userTurns: number }
  | { type: 'moment'; ref: string; what: 'toolCallSentAt' | 'streamEndAt' | 'apiAt' | 'continuationAt'; at: number }
  | { type: 'loop'; p99_ms: number }
  | { type: 'checked'; requests: number; unsigned: number }
  | { type: 'closed' };

export type ModelCommand =
  | { type: 'run'; run: string }
  | { type: 'secret'; secret: string }
  | { type: 'loop.reset' }
  | { type: 'loop.read' }
  | { type: 'check' }
  | { type: 'close' };

const port = parentPort;
if (!port) throw new Error('bench/tools-model.worker.ts runs as a worker thread');
const { functionName } = workerData as { functionName: string };
const now = () => performance.timeOrigin + performance.now();
const post = (m: ModelMessage) => port.postMessage(m);

let run = 'warm-up';
let nextRef = 0;
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();

const customer = await CustomerApi.start();
const openai = await startFakeOpenAi({
  chat: (body) => {
    const at = now();
    const last = body.messages.at(-1);
    if (last?.role === 'tool') {
      post({ type: 'moment', ref: String(last.tool_call_id).replace(/^call_/, ''), what: 'continuationAt', at });
      return { text: 'Done, it is booked.' };
    }
    // other requests (the analysis after the call) do not offer the function
    const offered = (body.tools ?? []).some((t) => (t as { function?: { name?: string } }).function?.name === functionName);
    if (!offered) return { text: 'The caller booked a visit.' };
    const ref = `r${nextRef++}`;
    post({ type: 'turn', ref, run, userTurns: body.messages.filter((m) => m.role === 'user').length });
    return {
      toolCalls: [{ id: `call_${ref}`, name: functionName, arguments: { ref, day: 'tomorrow' } }],
      onSent: (what) => post({ type: 'moment', ref, what: what === 'tool_call' ? 'toolCallSentAt' : 'streamEndAt', at: now() }),
    };
  },
});
customer.answer = (req) => {
  const args = JSON.parse(req.body).args as { ref: string };
  post({ type: 'moment', ref: args.ref, what: 'apiAt', at: now() });
  return { booked: true, ref: args.ref };
};

port.on('message', async (c: ModelCommand) => {
  if (c.type === 'run') run = c.run;
  else if (c.type === 'secret') customer.secret = c.secret;
  else if (c.type === 'loop.reset') loop.reset();
  else if (c.type === 'loop.read')
    post({ type: 'loop', p99_ms: Math.round((Math.max(0, loop.percentile(99) / 1e6 - 10) || 0) * 10) / 10 });
  else if (c.type === 'check')
    post({ type: 'checked', requests: customer.requests.length, unsigned: customer.requests.filter((r) => !r.verified).length });
  else if (c.type === 'close') {
    await Promise.all([openai.close(), customer.close()]);
    loop.disable();
    post({ type: 'closed' });
    port.close();
  }
});
post({ type: 'ready', openaiUrl: openai.url, openaiKey: openai.apiKey, customerUrl: customer.url });
