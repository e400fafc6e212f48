/**
 * The agent's functions at run time: each function type (src/api/contract/agent/functions.ts) is a
 * ToolKind in registry.ts. At a conversation's start every function of the agent is prepared into the
 * tools the LLM sees (one each; an MCP server's list); during a turn the engine runs a tool call through
 * `PreparedTool.run` with a ToolEnv and gives the outcome back to the model.
 *
 * The engine owns timing and cancelling (the timeout, 'speak_during' after 500 ms, a barge-in or the
 * call's end abort `env.signal`); a tool only does its request and turns every failure (4xx/5xx, a
 * refused URL, bad JSON) into `{ ok: false, result: '<short reason for the model>' }` or a thrown
 * ToolError. The runner cuts `result` at TOOL_RESULT_MAX_BYTES and says so.
 */
import type { AgentFunction, AgentFunctionOf, FunctionType } from '@contract/agent/functions.js';
import type { AppDeps } from '../../platform/deps.js';
import type { ProviderAccess, ProviderId, ToolSpec } from '../providers/types.js';

/** The company's access to each provider card (engine/context.ts ProviderKeys; not imported from there: the engine imports this file). */
type ProviderKeys = Partial<Record<ProviderId, ProviderAccess>>;

/** What Parley tells a tool about the call (the custom function's `call` object, verbatim). */
export interface ToolCallInfo {
  call_id: string;
  agent_id: string;
  /** 'web_call' | 'phone_call' | 'chat' */
  type: string;
  from_number: string | null;
  to_number: string | null;
  dynamic_variables: Record<string, string>;
}

/** What the company's side of the server does for tools (filled by the composition root; tests fake it). */
export interface ToolServices {
  /** the company's webhook signing secret (custom functions are signed exactly like webhooks) */
  signingSecret(companyId: string): Promise<string>;
  /** a text message from one of the company's numbers through that number's carrier (Twilio Messages.json / Plivo Message/) */
  sendSms(companyId: string, message: { from: string; to: string; text: string }, signal: AbortSignal): Promise<{ id: string }>;
}

/** The phone line of a call (absent in web calls and chats). */
export interface ToolPhoneLine {
  carrier: string;
  /** Plays `digits` (0-9 * # A-D) as in-band DTMF tones into the call (ITU-T Q.23, 100 ms tone / 100 ms gap). */
  playDigits(digits: string, signal: AbortSignal): Promise<void>;
}

/** What a tool runs with. */
export interface ToolEnv {
  deps: AppDeps;
  companyId: string;
  call: ToolCallInfo;
  /** the company's connected provider cards the agent's functions need (calcom, calendly, perplexity, whatsapp), decrypted */
  keys: ProviderKeys;
  services: ToolServices;
  phone: ToolPhoneLine | undefined;
  /** aborted when the call ends, the caller barges in or the tool's timeout passes */
  signal: AbortSignal;
}

/** A tool's answer for the model. */
export interface ToolOutcome {
  ok: boolean;
  /** what the LLM reads: JSON or text (the runner cuts it at TOOL_RESULT_MAX_BYTES) */
  result: string;
}

/** An answer that tells the model the function did not do its work, and why. */
export const toolFailed = (result: string): ToolOutcome => ({ ok: false, result });

/** A failure the model is told about in these words (never a dropped call). */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

/** One tool the LLM sees, ready to run. */
export interface PreparedTool {
  /** the name the LLM calls (the function's name; an MCP tool's `<function name>__<tool name>`) */
  spec: ToolSpec;
  fn: AgentFunction;
  run(args: Record<string, unknown>, env: ToolEnv): Promise<ToolOutcome>;
  /**
   * it acts on the call's own audio (press_digit plays tones): it runs only once the model's answer has ended
   * and the words before it are queued; other tools start as soon as the model has called them
   */
  actsOnLine?: true;
  /** the conversation is over (an MCP session is closed) */
  close?(): Promise<void>;
}

export interface ToolKind<T extends FunctionType = FunctionType> {
  type: T;
  /** At the conversation's start: the tools this function offers (one; an MCP server's listed tools). */
  prepare(fn: AgentFunctionOf<T>, env: Omit<ToolEnv, 'signal'> & { signal: AbortSignal }): Promise<PreparedTool[]>;
  /** On save, beyond the schema: a problem with this function (a private URL, parameters that are not JSON Schema), or null. */
  check?(fn: AgentFunctionOf<T>, deps: AppDeps): Promise<string | null>;
}
