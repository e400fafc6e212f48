/**
 * What a call costs, from what it measurably used: seconds of caller audio recognised, LLM
 * tokens, characters spoken, and minutes on the phone line. The unit prices are the billing's per-minute
 * list prices (src/api/contract/models.ts) spread over a reference minute of conversation, so a typical
 * minute costs what the editor shows:
 *
 *   reference minute = 60 s of caller audio + REFERENCE_LLM_TOKENS tokens + REFERENCE_TTS_CHARACTERS
 *                      characters spoken + 1 minute of line
 *   VOICE_AND_TELEPHONY_PER_MINUTE ($0.031) = speech recognition $0.010 + voice $0.015 + telephony $0.006
 *   an LLM token costs (the model's price per minute) / REFERENCE_LLM_TOKENS
 *
 * e.g. GPT 4o: $0.05 + $0.031 = $0.081 for the reference minute. Web calls and chats use no phone line.
 */
import { LLM_MODELS, VOICE_AND_TELEPHONY_PER_MINUTE } from './models';

export const STT_PER_MINUTE = 0.01;
export const TTS_PER_MINUTE = 0.015;
export const TELEPHONY_PER_MINUTE = VOICE_AND_TELEPHONY_PER_MINUTE - STT_PER_MINUTE - TTS_PER_MINUTE;
/** LLM tokens (input + output) in the reference minute */
export const REFERENCE_LLM_TOKENS = 2000;
/** characters the agent speaks in the reference minute (about 15 a second) */
export const REFERENCE_TTS_CHARACTERS = 900;

export interface MeasuredUsage {
  sttSeconds: number;
  llmInputTokens: number;
  llmOutputTokens: number;
  ttsCharacters: number;
  telephonyMinutes: number;
  llmModel: string;
}

export interface Cost {
  stt: number;
  llm: number;
  tts: number;
  telephony: number;
  total: number;
}

/** USD rounded to 1/10,000 of a dollar (a call's parts are small). */
const round4 = (usd: number) => Math.round(usd * 10_000) / 10_000;

export function llmPricePerToken(modelId: string): number {
  const model = LLM_MODELS.find((m) => m.id === modelId);
  return (model?.pricePerMinute ?? 0) / REFERENCE_LLM_TOKENS;
}

export function usageCost(u: MeasuredUsage): Cost {
  const stt = round4((u.sttSeconds / 60) * STT_PER_MINUTE);
  const llm = round4((u.llmInputTokens + u.llmOutputTokens) * llmPricePerToken(u.llmModel));
  const tts = round4((u.ttsCharacters / REFERENCE_TTS_CHARACTERS) * TTS_PER_MINUTE);
  const telephony = round4(u.telephonyMinutes * TELEPHONY_PER_MINUTE);
  return { stt, llm, tts, telephony, total: round4(stt + llm + tts + telephony) };
}

/** A call's usage as stored with it (CallUsage of call-runtime.ts). */
export interface StoredUsage {
  stt_seconds: number;
  llm_input_tokens: number;
  llm_output_tokens: number;
  tts_characters: number;
  telephony_minutes: number;
  llm_model: string;
}

/** What a call cost, from its stored usage. */
export const storedUsageCost = (u: StoredUsage): Cost =>
  usageCost({
    sttSeconds: u.stt_seconds,
    llmInputTokens: u.llm_input_tokens,
    llmOutputTokens: u.llm_output_tokens,
    ttsCharacters: u.tts_characters,
    telephonyMinutes: u.telephony_minutes,
    llmModel: u.llm_model,
  });
