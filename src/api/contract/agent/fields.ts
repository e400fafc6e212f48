/**
 * The valibot building blocks of the agent's fields: texts, ranges, URLs, and the model and language picks.
 */
import * as v from 'valibot';
import { LANGUAGE_CODES, LLM_MODEL_IDS, VOICE_MODEL_IDS } from '../models';
import { AGENT_MESSAGES, AGENT_NAME_MAX, AGENT_TEXT_MAX, DAY_MS } from './messages';

/** A required text: missing, non-text or blank all answer `msg`. */
export const requiredText = (msg: string, max = AGENT_NAME_MAX) =>
  v.pipe(v.optional(v.string(msg), ''), v.trim(), v.nonEmpty(msg), v.maxLength(max, AGENT_MESSAGES.tooLong(max)));
export const text = (max = AGENT_TEXT_MAX) => v.pipe(v.string(), v.maxLength(max, AGENT_MESSAGES.tooLong(max)));
const oneOf = (list: readonly string[], required: string, unknown: string) =>
  v.pipe(
    requiredText(required, 100),
    v.check((s) => s === '' || list.includes(s), unknown),
  );
export const range = (min: number, max: number) => {
  const msg = AGENT_MESSAGES.between(min, max);
  return v.pipe(v.number(msg), v.minValue(min, msg), v.maxValue(max, msg));
};
export const nonNegative = (max: number) =>
  v.pipe(
    v.number(AGENT_MESSAGES.nonNegative),
    v.minValue(0, AGENT_MESSAGES.nonNegative),
    v.maxValue(max, AGENT_MESSAGES.between(0, max)),
  );
export const positiveMs = v.pipe(
  v.number(AGENT_MESSAGES.positiveInteger),
  v.integer(AGENT_MESSAGES.positiveInteger),
  v.minValue(1, AGENT_MESSAGES.positiveInteger),
  v.maxValue(DAY_MS, AGENT_MESSAGES.between(1, DAY_MS)),
);
export const isWebUrl = (s: string) => {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
};
export const urlOrEmpty = v.pipe(
  v.string(AGENT_MESSAGES.invalidUrl),
  v.trim(),
  v.maxLength(2048, AGENT_MESSAGES.tooLong(2048)),
  v.check((s) => s === '' || isWebUrl(s), AGENT_MESSAGES.invalidUrl),
);

export const LlmModelSchema = oneOf(LLM_MODEL_IDS, AGENT_MESSAGES.llmModelRequired, AGENT_MESSAGES.unknownLlmModel);
export const LanguageSchema = oneOf(LANGUAGE_CODES, AGENT_MESSAGES.languageRequired, AGENT_MESSAGES.unknownLanguage);
export const VoiceModelSchema = oneOf(VOICE_MODEL_IDS, AGENT_MESSAGES.voiceModelRequired, AGENT_MESSAGES.unknownVoiceModel);
