/**
 * The editor's sub-records: functions, pronunciations, knowledge bases, dynamic variables.
 */
import * as v from 'valibot';
import { requiredText, text } from './fields';
import { AGENT_MESSAGES } from './messages';

export * from './functions';

export const PRONUNCIATION_TYPES = ['IPA', 'CMU'] as const;
export type PronunciationType = (typeof PRONUNCIATION_TYPES)[number];
export const VOICEMAIL_ACTIONS = ['hang', 'leave'] as const;
export type VoicemailAction = (typeof VOICEMAIL_ACTIONS)[number];
export const KNOWLEDGE_BASE_STATUSES = ['pending', 'processing', 'complete', 'failed'] as const;
export type KnowledgeBaseStatus = (typeof KNOWLEDGE_BASE_STATUSES)[number];

export const PronunciationSchema = v.object({
  id: v.pipe(v.string(), v.maxLength(64)),
  word: requiredText(AGENT_MESSAGES.pronunciationWordRequired, 100),
  type: v.picklist(PRONUNCIATION_TYPES, 'Pronunciation type must be IPA or CMU'),
  phoneme: requiredText(AGENT_MESSAGES.phonemeRequired, 200),
});
export type Pronunciation = v.InferOutput<typeof PronunciationSchema>;

export const KnowledgeBaseSourceSchema = v.object({
  file_url: v.optional(text(2048)),
  filename: text(500),
  type: text(100),
  file_size: v.optional(v.pipe(v.number(), v.minValue(0))),
  content: v.optional(text(100_000)),
});

/** A knowledge base chosen for the agent (the specification's 'Knowledge base selection'); `knowledge_base_id` links to GET /knowledge-base. */
export const KnowledgeBaseSelectionSchema = v.object({
  knowledge_base_id: v.optional(text(64)),
  knowledge_base_name: requiredText(AGENT_MESSAGES.knowledgeBaseNameRequired, 200),
  knowledge_base_sources: v.optional(v.pipe(v.array(KnowledgeBaseSourceSchema), v.maxLength(100)), () => []),
  enable_auto_refresh: v.optional(v.boolean(), false),
  status: v.optional(v.picklist(KNOWLEDGE_BASE_STATUSES), 'pending'),
  user_modified_timestamp: v.optional(v.union([v.number(), v.string()])),
});
export type KnowledgeBaseSelection = v.InferOutput<typeof KnowledgeBaseSelectionSchema>;

export const DynamicVariableSchema = v.object({ name: text(100), value: text(2000) });
export type DynamicVariable = v.InferOutput<typeof DynamicVariableSchema>;

/**
 * A custom field of the post-call analysis: what the LLM extracts from each call, validated
 * against its type; `choices` are the allowed values of an `enum` ('one of a list').
 */
export const ANALYSIS_FIELD_TYPES = ['text', 'number', 'boolean', 'enum'] as const;
export type AnalysisFieldType = (typeof ANALYSIS_FIELD_TYPES)[number];
export const ANALYSIS_FIELD_TYPE_LABELS: Record<AnalysisFieldType, string> = {
  text: 'Text',
  number: 'Number',
  boolean: 'Yes / No',
  enum: 'One of a list',
};
export const ANALYSIS_FIELDS_MAX = 20;
export const AnalysisFieldSchema = v.pipe(
  v.object({
    name: v.pipe(
      requiredText('Field name is required', 64),
      v.regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'Field name: letters, digits and _ only, starting with a letter'),
    ),
    type: v.picklist(ANALYSIS_FIELD_TYPES, 'Field type must be text, number, boolean or enum'),
    description: v.optional(text(500), ''),
    choices: v.optional(v.pipe(v.array(requiredText('A choice cannot be empty', 100)), v.maxLength(20)), () => []),
  }),
  v.check((f) => f.type !== 'enum' || f.choices.length >= 2, 'A list field needs at least 2 choices'),
);
export type AnalysisField = v.InferOutput<typeof AnalysisFieldSchema>;
