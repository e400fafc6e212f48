/**
 * The agent export file (the Agents page's 'Export' row action and 'Import' button).
 *
 * Export writes an envelope around the agent's save payload (the specification's 'Agent save', the same body
 * POST /agent takes), so a file says what it is and which format version wrote it:
 *
 *   {
 *     "format": "parley.agent",
 *     "version": 1,
 *     "exportedAt": "2026-05-01T09:30:00.000Z",
 *     "agent": { "name": "...", "prompt": "...", "message": "...", "settings": {...}, "editor": {...} }
 *   }
 *
 * A conversation-flow agent's file also carries `"kind": "conversation_flow"` and its `"flow"`; Import checks
 * the flow against the file's own functions (validateFlow) and names its first problem.
 *
 * Import takes such a file, or a bare save payload (`{ name, prompt, message, settings, editor }`),
 * validates it with the contract's AgentSavePayloadSchema (ranges and messages of the specification)
 * and creates a NEW agent from it (POST /agent); ownership always comes from the importer's token.
 */
import * as v from 'valibot';
import { parseJson } from '../json';
import { agentToSavePayload } from './editor-form';
import { agentFlowProblems, flowProblemsMessage } from './flow';
import type { Agent } from './responses';
import { type AgentSavePayload, AgentSavePayloadSchema } from './save';

export const AGENT_EXPORT_FORMAT = 'parley.agent';
export const AGENT_EXPORT_VERSION = 1;
/** Largest file Import reads (the server's agent body limit is 2 MiB). */
export const AGENT_IMPORT_MAX_BYTES = 2 * 1024 * 1024;

export const AGENT_IMPORT_MESSAGES = {
  tooLarge: 'The file is too large for an agent export (at most 2 MB).',
  notJson: 'The file is not JSON. Choose a file made by Export.',
  notAgent: 'The file is not an agent export.',
  newerFormat: (version: number) => `The file was exported by a newer version of Parley (format ${version}).`,
  invalid: (where: string, message: string) => `The agent in the file is not valid: ${where}: ${message}`,
} as const;

export const AgentExportSchema = v.object({
  format: v.literal(AGENT_EXPORT_FORMAT),
  version: v.literal(AGENT_EXPORT_VERSION),
  exportedAt: v.optional(v.string()),
  agent: AgentSavePayloadSchema,
});
export type AgentExport = v.InferOutput<typeof AgentExportSchema>;

/** The export file of a loaded agent (GET /agent/{id}). */
export function agentExportOf(agent: Agent, now = new Date()): AgentExport {
  return {
    format: AGENT_EXPORT_FORMAT,
    version: AGENT_EXPORT_VERSION,
    exportedAt: now.toISOString(),
    agent: agentToSavePayload(agent),
  };
}

/** A file name for the export: `agent-<name>.json` with the name reduced to safe characters. */
export function agentExportFileName(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/[\s_-]+/g, '-')
    .toLowerCase()
    .slice(0, 60);
  return `agent-${slug || 'export'}.json`;
}

export type AgentImportResult = { ok: true; payload: AgentSavePayload } | { ok: false; message: string };

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Reads an export file's text: the payload to create, or the one message that says what is wrong. */
export function parseAgentImport(text: string): AgentImportResult {
  let data: unknown;
  try {
    data = parseJson(text);
  } catch {
    return { ok: false, message: AGENT_IMPORT_MESSAGES.notJson };
  }
  if (!isObject(data)) return { ok: false, message: AGENT_IMPORT_MESSAGES.notAgent };

  let candidate: unknown = data;
  if ('format' in data || 'agent' in data) {
    if (data.format !== AGENT_EXPORT_FORMAT || !isObject(data.agent))
      return { ok: false, message: AGENT_IMPORT_MESSAGES.notAgent };
    if (typeof data.version === 'number' && data.version > AGENT_EXPORT_VERSION)
      return { ok: false, message: AGENT_IMPORT_MESSAGES.newerFormat(data.version) };
    if (data.version !== AGENT_EXPORT_VERSION) return { ok: false, message: AGENT_IMPORT_MESSAGES.notAgent };
    candidate = data.agent;
  } else if (!('name' in data) || !('settings' in data)) {
    return { ok: false, message: AGENT_IMPORT_MESSAGES.notAgent };
  }

  const parsed = v.safeParse(AgentSavePayloadSchema, candidate);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const where = v.getDotPath(issue) ?? 'agent';
    return { ok: false, message: AGENT_IMPORT_MESSAGES.invalid(where, issue.message) };
  }
  // the owner of an imported agent is whoever imports it
  const { company: _c, account: _a, ...payload } = parsed.output;
  const problems = agentFlowProblems(payload);
  if (problems.length > 0) return { ok: false, message: AGENT_IMPORT_MESSAGES.invalid('flow', flowProblemsMessage(problems)) };
  return { ok: true, payload };
}
