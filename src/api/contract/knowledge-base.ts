/**
 * Contract of the knowledge base calls. Imported by the client (the
 * editor's Knowledge Base section and its upload dialog) AND the server.
 *
 * - `GET /knowledge-base?page&limit&search` (page 1-based): the company's knowledge bases, newest first,
 *   `{ success, data: { knowledge_bases, total } }`.
 * - `GET /knowledge-base/{id}`: one knowledge base (its status while it is processed).
 * - `POST /knowledge-base` (multipart/form-data, entries of arrays repeated):
 *   - `knowledge_base_name` (required),
 *   - `knowledge_base_files` (0..KB_FILES_MAX files, each at most 10 MB; TXT, MD, CSV, HTML as UTF-8 text or
 *     PDF, checked by content: a file whose bytes do not match its type answers 400 and nothing is stored;
 *     a file over 10 MB answers 413 as soon as its 10 MB + 1st byte arrives),
 *   - `knowledge_base_texts` (0..KB_TEXTS_MAX entries, each JSON `{"title": "...", "text": "..."}`),
 *   - `knowledge_base_urls` (0..KB_URLS_MAX http(s) URLs, stored for a later refresh, not fetched),
 *   - `enable_auto_refresh` ('true' | 'false', default false).
 *   At least one file, text or URL. Answers 201 `{ success, msg, data: { knowledge_base } }` with status
 *   'pending'; the server then extracts and chunks the text in the background:
 *   pending -> processing -> complete | failed (`error_message` says why).
 * - `DELETE /knowledge-base/{id}`.
 */
import * as v from 'valibot';
import { isWebUrl, requiredText } from './agent/fields';
import { AGENT_MESSAGES } from './agent/messages';
import {
  KNOWLEDGE_BASE_STATUSES,
  type KnowledgeBaseSelection,
  KnowledgeBaseSourceSchema,
  type KnowledgeBaseStatus,
} from './agent/records';
import { intParam, searchParam } from './list';

export const KB_FILE_MAX_BYTES = 10 * 1024 * 1024;
export const KB_FILES_MAX = 20;
export const KB_TEXTS_MAX = 50;
export const KB_URLS_MAX = 50;
export const KB_NAME_MAX = 200;
export const KB_TEXT_MAX = 100_000;
export const KB_URL_MAX = 2048;
/** The whole multipart request: every file at its limit plus room for the texts and the framing. */
export const KB_REQUEST_MAX_BYTES = KB_FILES_MAX * KB_FILE_MAX_BYTES + 8 * 1024 * 1024;

/** The kinds of file a knowledge base takes, by extension; the content must match (see the server). */
export const KB_FILE_KINDS = {
  txt: { mime: 'text/plain', extensions: ['txt'] },
  md: { mime: 'text/markdown', extensions: ['md', 'markdown'] },
  csv: { mime: 'text/csv', extensions: ['csv'] },
  html: { mime: 'text/html', extensions: ['html', 'htm'] },
  pdf: { mime: 'application/pdf', extensions: ['pdf'] },
} as const;
export type KbFileKind = keyof typeof KB_FILE_KINDS;
/** For `<input type="file" accept>`. */
export const KB_FILE_ACCEPT = Object.values(KB_FILE_KINDS)
  .flatMap((k) => k.extensions.map((e) => `.${e}`))
  .join(',');

/** The kind a file name claims, or null when its extension is not one of KB_FILE_KINDS. */
export function kbFileKindOf(filename: string): KbFileKind | null {
  const ext = /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase();
  if (!ext) return null;
  for (const [kind, info] of Object.entries(KB_FILE_KINDS))
    if ((info.extensions as readonly string[]).includes(ext)) return kind as KbFileKind;
  return null;
}

export const KB_FORM_FIELDS = {
  name: 'knowledge_base_name',
  files: 'knowledge_base_files',
  texts: 'knowledge_base_texts',
  urls: 'knowledge_base_urls',
  autoRefresh: 'enable_auto_refresh',
} as const;

const MB = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

export const KB_MESSAGES = {
  nameRequired: AGENT_MESSAGES.knowledgeBaseNameRequired,
  noSources: 'Add at least one file, text or URL',
  notMultipart: 'Send the knowledge base as multipart/form-data',
  malformed: 'The upload could not be read. Please try again.',
  unknownField: (name: string) => `Unknown field '${name}'`,
  tooManyFiles: `At most ${KB_FILES_MAX} files per knowledge base`,
  tooManyTexts: `At most ${KB_TEXTS_MAX} texts per knowledge base`,
  tooManyUrls: `At most ${KB_URLS_MAX} URLs per knowledge base`,
  fileTooLarge: (name: string) => `${name} is larger than ${MB(KB_FILE_MAX_BYTES)}`,
  requestTooLarge: 'The upload is too large',
  unsupportedFile: (name: string) => `${name}: only TXT, MD, CSV, HTML or PDF files are allowed`,
  notPdf: (name: string) => `${name} is not a PDF file`,
  notText: (name: string) => `${name} is not a UTF-8 text file`,
  emptyFile: (name: string) => `${name} is empty`,
  textInvalid: 'Each text must be JSON with a title and a text',
  textRequired: 'Text is required',
  textTooLong: `A text may be at most ${KB_TEXT_MAX} characters`,
  urlInvalid: (url: string) => `${url} is not a valid http(s) URL`,
  autoRefreshInvalid: "enable_auto_refresh must be 'true' or 'false'",
  created: 'Knowledge base created. Its sources are being processed.',
  deleted: 'Knowledge base deleted.',
  notFound: 'Knowledge base not found',
  noText: (name: string) => `No text could be read from ${name} (scanned PDFs are not supported)`,
  unreadablePdf: (name: string) => `${name} could not be read as a PDF`,
  /** the file passed a limit of its reading (time, memory, decompressed size, amount of text) */
  tooComplex: (name: string) => `${name} is too complex to read. Please simplify it or split it into smaller files.`,
} as const;

export const KB_STATUS_LABELS: Record<KnowledgeBaseStatus, string> = {
  pending: 'Pending',
  processing: 'Processing',
  complete: 'Complete',
  failed: 'Failed',
};

/** A status that will still change (the editor polls while one is shown). */
export const isKbInProgress = (status: KnowledgeBaseStatus) => status === 'pending' || status === 'processing';

// ---------------------------------------------------------------------------------------------
// Request pieces (validated by the server after the multipart stream is read)

export const KbNameSchema = requiredText(KB_MESSAGES.nameRequired, KB_NAME_MAX);

export const KbTextSchema = v.object({
  title: v.pipe(v.optional(v.string(), ''), v.trim(), v.maxLength(500, 'A title may be at most 500 characters')),
  text: requiredText(KB_MESSAGES.textRequired, KB_TEXT_MAX),
});
export type KbText = v.InferOutput<typeof KbTextSchema>;

export const KbUrlSchema = v.pipe(
  v.string(),
  v.trim(),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const url = dataset.value;
    if (url.length > KB_URL_MAX || !isWebUrl(url)) addIssue({ message: KB_MESSAGES.urlInvalid(url.slice(0, 100)) });
  }),
);

export const KbAutoRefreshSchema = v.pipe(
  v.optional(v.string(), 'false'),
  v.picklist(['true', 'false', 'on', ''], KB_MESSAGES.autoRefreshInvalid),
  v.transform((s) => s === 'true' || s === 'on'),
);

// ---------------------------------------------------------------------------------------------
// Answers

export const KnowledgeBaseSchema = v.object({
  knowledge_base_id: v.string(),
  knowledge_base_name: v.string(),
  knowledge_base_sources: v.array(KnowledgeBaseSourceSchema),
  enable_auto_refresh: v.boolean(),
  status: v.picklist(KNOWLEDGE_BASE_STATUSES),
  /** why processing failed */
  error_message: v.optional(v.string()),
  /** number of text chunks extracted */
  chunk_count: v.number(),
  /** ms since the epoch of the last change a user made */
  user_modified_timestamp: v.number(),
  createdAt: v.string(),
  updatedAt: v.string(),
});
export type KnowledgeBase = v.InferOutput<typeof KnowledgeBaseSchema>;

export const KnowledgeBaseListResponseSchema = v.object({
  success: v.literal(true),
  data: v.object({ knowledge_bases: v.array(KnowledgeBaseSchema), total: v.number() }),
});
export type KnowledgeBaseListResponse = v.InferOutput<typeof KnowledgeBaseListResponseSchema>;

export const KnowledgeBaseResponseSchema = v.object({
  success: v.literal(true),
  msg: v.optional(v.string()),
  data: v.object({ knowledge_base: KnowledgeBaseSchema }),
});
export type KnowledgeBaseResponse = v.InferOutput<typeof KnowledgeBaseResponseSchema>;

export const KnowledgeBaseDeleteResponseSchema = v.object({
  success: v.literal(true),
  msg: v.string(),
  data: v.object({ knowledge_base_id: v.string() }),
});

export const KB_LIST_LIMIT_MAX = 100;
export const KB_LIST_LIMIT_DEFAULT = 50;

export const KnowledgeBaseListQuerySchema = v.object({
  page: intParam(1, 1, 1_000_000),
  limit: intParam(KB_LIST_LIMIT_DEFAULT, 1, KB_LIST_LIMIT_MAX),
  search: searchParam(200),
});
export type KnowledgeBaseListQuery = v.InferOutput<typeof KnowledgeBaseListQuerySchema>;

export const KB_PATHS = {
  list: '/knowledge-base',
  create: '/knowledge-base',
  one: (id: string) => `/knowledge-base/${encodeURIComponent(id)}`,
} as const;

/** What an agent keeps of a chosen knowledge base (the specification's 'Knowledge base selection'). */
export function toKnowledgeBaseSelection(kb: KnowledgeBase): KnowledgeBaseSelection {
  return {
    knowledge_base_id: kb.knowledge_base_id,
    knowledge_base_name: kb.knowledge_base_name,
    knowledge_base_sources: kb.knowledge_base_sources.map(({ content: _content, ...s }) => s),
    enable_auto_refresh: kb.enable_auto_refresh,
    status: kb.status,
    user_modified_timestamp: kb.user_modified_timestamp,
  };
}
