/**
 * What a call keeps, from the storage level of the agent it ran (the snapshot stored with the call), applied
 * before anything is stored; everything sent later (GET /call/{id}, webhooks, exports, the post-call
 * analysis) is read from what was stored, so it carries no more.
 *
 * | level               | transcript, function arguments/results, variables | analysis text | recording          |
 * |---------------------|---------------------------------------------------|---------------|--------------------|
 * | everything          | as heard                                          | as written    | if recordCalls     |
 * | everything_but_pii  | personal data replaced by markers (redaction.ts)  | redacted      | none (see below)   |
 * | metadata_only       | none                                              | none          | none               |
 *
 * At 'everything_but_pii' no recording is kept: the recogniser's word times are not carried into the
 * transcript yet, so the spans to silence ('Redact recordings') are not known. The live conversation is
 * unchanged: the model hears everything; only what is kept is reduced.
 */
import { storageLevelOf } from '@contract/agent/editor.js';
import type { CallAnalysis, TranscriptTurn } from '@contract/call-runtime.js';
import type { DataStorage } from '@contract/data-storage.js';
import { namesFromVariables, namesIn, redactText, redactValue } from './redaction.js';

export interface ContentPolicy {
  level: DataStorage;
  /** a recording is made and kept */
  record: boolean;
  /** names known before the call (its dynamic variables), replaced wherever they occur */
  names: string[];
}

const parsed = (value: unknown): unknown => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
};

/** The policy of a call from its stored agent snapshot and dynamic variables (JSON text or objects). */
export function contentPolicy(agent: unknown, variables: unknown): ContentPolicy {
  const doc = parsed(agent) as
    | { editor?: { dataStorage?: unknown; sensitiveDataStorage?: unknown; recordCalls?: unknown } }
    | undefined;
  const editor = doc && typeof doc === 'object' ? doc.editor : undefined;
  const level = storageLevelOf(editor);
  const vars = parsed(variables);
  const names =
    level === 'everything_but_pii' && vars && typeof vars === 'object' ? namesFromVariables(vars as Record<string, string>) : [];
  return { level, record: level === 'everything' && editor?.recordCalls !== false, names };
}

/**
 * A call's transcript as the policy keeps it, for a transcript that grows turn by turn: each turn is redacted
 * once (a live call saves its whole transcript after every turn), with the names the call has given so far
 * (its variables', and any a turn introduces: 'my name is ...' then 'thanks, Ruth'); a new name redoes them.
 */
export function transcriptKeeper(policy: ContentPolicy): (turns: readonly TranscriptTurn[]) => TranscriptTurn[] {
  if (policy.level === 'everything') return (turns) => [...turns];
  if (policy.level === 'metadata_only') return () => [];
  const names = new Set(policy.names);
  const scanned = new Set<string>();
  const cache = new Map<string, Pick<TranscriptTurn, 'text' | 'tool_calls'>>();
  const redactTurn = (t: TranscriptTurn) => {
    const opts = { names: [...names] };
    return {
      text: redactText(t.text, opts),
      ...(t.tool_calls
        ? {
            tool_calls: t.tool_calls.map((c) => ({
              ...c,
              arguments: redactValue(c.arguments, opts) as Record<string, unknown>,
              ...(c.result !== undefined ? { result: redactText(c.result, opts) } : {}),
            })),
          }
        : {}),
    };
  };
  return (turns) => {
    const before = names.size;
    for (const t of turns) {
      if (scanned.has(t.text)) continue;
      scanned.add(t.text);
      for (const n of namesIn(t.text)) names.add(n);
    }
    if (names.size !== before) cache.clear();
    return turns.map((t) => {
      const key = t.tool_calls ? `${t.text}\u0000${JSON.stringify(t.tool_calls)}` : t.text;
      let kept = cache.get(key);
      if (!kept) {
        kept = redactTurn(t);
        cache.set(key, kept);
      }
      const { tool_calls: _drop, ...rest } = t;
      return { ...rest, ...kept };
    });
  };
}

/** The transcript as the policy keeps it (names given anywhere in the call are replaced everywhere). */
export function keptTranscript(turns: readonly TranscriptTurn[], policy: ContentPolicy): TranscriptTurn[] {
  return transcriptKeeper(policy)(turns);
}

/** The dynamic variables as the policy keeps them (their keys, and values redacted or dropped). */
export function keptVariables(variables: Record<string, string>, policy: ContentPolicy): Record<string, string> {
  if (policy.level === 'everything') return variables;
  if (policy.level === 'metadata_only') return {};
  const out: Record<string, string> = {};
  for (const [k, value] of Object.entries(variables))
    out[k] = /name/i.test(k) ? '[NAME]' : redactText(value, { names: policy.names });
  return out;
}

/** The post-call analysis's text as the policy keeps it (null: the call is not analysed at all). */
export function keptAnalysis<A extends Pick<CallAnalysis, 'summary' | 'custom'>>(analysis: A, policy: ContentPolicy): A | null {
  if (policy.level === 'everything') return analysis;
  if (policy.level === 'metadata_only') return null;
  const opts = { names: policy.names };
  return {
    ...analysis,
    summary: analysis.summary === null ? null : redactText(analysis.summary, opts),
    custom: redactValue(analysis.custom, opts) as A['custom'],
  };
}

/** Why GET /call/{id} shows less than the call said: null when it keeps everything. */
export function contentWithheld(policy: ContentPolicy): Exclude<DataStorage, 'everything'> | null {
  return policy.level === 'everything' ? null : policy.level;
}
