/**
 * Unsaved agent-editor drafts, kept in the browser's IndexedDB (the specification: database `myDatabase`
 * version 1, object store `myStore` keyed by `id`). One record per agent: `id` is the agent's id, or
 * 'new' for the agent being created. The editor writes a draft within a second of the last edit, offers
 * it when the editor opens again (after a crash or a reload), and removes it on save or discard; signing
 * out removes every draft (src/session).
 *
 * Every call resolves even when IndexedDB is missing or refuses (private mode, quota): drafts are a
 * safety net, never a reason for the editor to fail.
 */
import type { AgentEditorForm } from '../api/contract/agent/editor-form';

export const DRAFT_DB_NAME = 'myDatabase';
export const DRAFT_DB_VERSION = 1;
export const DRAFT_STORE = 'myStore';
export const NEW_AGENT_DRAFT_ID = 'new';

export interface AgentDraft {
  /** the agent's id, or 'new' */
  id: string;
  form: AgentEditorForm;
  /** the server version the edits started from (null for a new agent) */
  baseVersion: number | null;
  /** ms since the epoch */
  savedAt: number;
}

export interface DraftStore {
  get(id: string): Promise<AgentDraft | undefined>;
  put(draft: AgentDraft): Promise<void>;
  remove(id: string): Promise<void>;
  /** removes every draft */
  clear(): Promise<void>;
}

export const draftIdOf = (agentId: string | undefined) => agentId ?? NEW_AGENT_DRAFT_ID;

const requestDone = <T>(req: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });

/** The IndexedDB-backed store (`factory`: the browser's indexedDB; undefined = a store that keeps nothing). */
export function indexedDbDraftStore(factory: IDBFactory | undefined = globalThis.indexedDB): DraftStore {
  let opening: Promise<IDBDatabase> | undefined;
  const open = () => {
    if (!factory) return Promise.reject(new Error('IndexedDB is not available'));
    opening ??= new Promise<IDBDatabase>((resolve, reject) => {
      const req = factory.open(DRAFT_DB_NAME, DRAFT_DB_VERSION);
      req.onupgradeneeded = () => {
        if (!req.result.objectStoreNames.contains(DRAFT_STORE)) req.result.createObjectStore(DRAFT_STORE, { keyPath: 'id' });
      };
      req.onsuccess = () => {
        const db = req.result;
        // another tab upgrading or deleting the database: let it, and reopen next time
        db.onversionchange = () => {
          db.close();
          opening = undefined;
        };
        resolve(db);
      };
      req.onerror = () => {
        opening = undefined;
        reject(req.error);
      };
    });
    return opening;
  };
  const run = async <T>(mode: IDBTransactionMode, op: (store: IDBObjectStore) => IDBRequest<T>): Promise<T | undefined> => {
    try {
      const db = await open();
      const tx = db.transaction(DRAFT_STORE, mode);
      const result = await requestDone(op(tx.objectStore(DRAFT_STORE)));
      if (mode === 'readwrite')
        await new Promise<void>((resolve, reject) => {
          tx.oncomplete = () => resolve();
          tx.onerror = () => reject(tx.error);
          tx.onabort = () => reject(tx.error);
        });
      return result;
    } catch {
      return undefined;
    }
  };
  return {
    get: async (id) => {
      const found = (await run('readonly', (s) => s.get(id))) as AgentDraft | undefined;
      return found && typeof found === 'object' && 'form' in found ? found : undefined;
    },
    put: async (draft) => {
      await run('readwrite', (s) => s.put(draft));
    },
    remove: async (id) => {
      await run('readwrite', (s) => s.delete(id));
    },
    clear: async () => {
      await run('readwrite', (s) => s.clear());
    },
  };
}

/** The app's draft store. */
export const drafts: DraftStore = indexedDbDraftStore();
