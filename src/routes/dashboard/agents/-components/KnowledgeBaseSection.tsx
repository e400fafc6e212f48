import { useActorRef, useSelector } from '@xstate/react';
import { memo, useRef, useState } from 'react';
import { fromPromise } from 'xstate';
import type { KnowledgeBaseSelection, KnowledgeBaseStatus } from '../../../../api/contract/agent/records';
import {
  isKbInProgress,
  KB_FILE_ACCEPT,
  KB_FILE_MAX_BYTES,
  KB_MESSAGES,
  KB_STATUS_LABELS,
  type KnowledgeBase,
  type KnowledgeBaseListResponse,
  toKnowledgeBaseSelection,
} from '../../../../api/contract/knowledge-base';
import { knowledgeBases } from '../../../../api/knowledge-bases';
import { knowledgeBaseUploadMachine } from '../../../../machines/knowledgeBaseUpload.machine';
import { remoteListMachine } from '../../../../machines/remoteList.machine';
import { Badge, type BadgeTone } from '../../../../ui/badge/badge';
import { Button } from '../../../../ui/button/button';
import { Checkbox } from '../../../../ui/checkbox/checkbox';
import { Dialog } from '../../../../ui/dialog/dialog';
import { PlusIcon } from '../../../../ui/icons';
import { Spinner } from '../../../../ui/spinner/spinner';
import { Switch } from '../../../../ui/switch/switch';
import { TextField } from '../../../../ui/text-field/text-field';
import { Textarea } from '../../../../ui/textarea/textarea';
import { Section } from './EditorSections';
import * as s from './editor.css';
import { useField } from './editor-context';

const listOf = (data: unknown) => (data as KnowledgeBaseListResponse | undefined)?.data.knowledge_bases ?? [];

const KB_STATUS_TONES: Record<KnowledgeBaseStatus, BadgeTone> = {
  pending: 'grey',
  processing: 'yellow',
  complete: 'green',
  failed: 'red',
};

export function StatusBadge({ status }: { status: KnowledgeBaseStatus }) {
  return <Badge tone={KB_STATUS_TONES[status]}>{KB_STATUS_LABELS[status]}</Badge>;
}

/** The Knowledge Base section: the company's bases with their live status, chosen by checkbox, and an upload. */
export const KnowledgeBaseSection = memo(function KnowledgeBaseSection() {
  const [selected, setSelected] = useField('selectedKnowledgeBases');
  const list = useActorRef(
    remoteListMachine.provide({
      actors: { load: fromPromise<unknown>(() => knowledgeBases.list({ limit: 100 }, { notify: false })) },
      guards: { needsPolling: ({ context }) => listOf(context.data).some((kb) => isKbInProgress(kb.status)) },
    }),
  );
  const loading = useSelector(list, (snap) => snap.hasTag('loading'));
  const failed = useSelector(list, (snap) => snap.hasTag('failed'));
  const bases = useSelector(list, (snap) => listOf(snap.context.data));

  // the machine is made once: its action reads the current selection through a ref
  const current = useRef(selected);
  current.current = selected;
  const upload = useActorRef(
    knowledgeBaseUploadMachine.provide({
      actions: {
        uploaded: (_, kb: KnowledgeBase) => {
          setSelected([...current.current, toKnowledgeBaseSelection(kb)]);
          list.send({ type: 'list.reload' });
        },
      },
    }),
  );
  const uploadOpen = useSelector(upload, (snap) => snap.hasTag('open'));

  const isSelected = (id: string) => selected.some((k) => k.knowledge_base_id === id);
  const toggle = (kb: KnowledgeBase, on: boolean) =>
    setSelected(
      on
        ? [...selected, toKnowledgeBaseSelection(kb)]
        : selected.filter((k: KnowledgeBaseSelection) => k.knowledge_base_id !== kb.knowledge_base_id),
    );
  // chosen bases that are no longer in the company's list (deleted elsewhere)
  const gone = selected.filter((k) => !bases.some((b) => b.knowledge_base_id === k.knowledge_base_id));

  return (
    <Section title="Knowledge Base">
      <p className={s.lead}>Documents the agent can draw on during calls.</p>
      {loading ? (
        <p className={s.muted} role="status">
          <Spinner size="sm" decorative /> Loading knowledge bases...
        </p>
      ) : failed ? (
        <div className={s.row} role="alert">
          <span className={s.error}>Failed to load knowledge bases</span>
          <Button size="sm" variant="secondary" onClick={() => list.send({ type: 'list.retry' })}>
            Retry
          </Button>
        </div>
      ) : bases.length === 0 && gone.length === 0 ? (
        <p className={s.muted}>No knowledge bases yet. Upload one to use it here.</p>
      ) : null}
      <ul className={s.list} aria-label="Knowledge bases">
        {bases.map((kb) => (
          <li key={kb.knowledge_base_id} className={s.listItem}>
            <Checkbox
              label={kb.knowledge_base_name}
              description={`${kb.knowledge_base_sources.length} source${kb.knowledge_base_sources.length === 1 ? '' : 's'}${
                kb.status === 'failed' && kb.error_message ? ` · ${kb.error_message}` : ''
              }`}
              checked={isSelected(kb.knowledge_base_id)}
              onCheckedChange={(on) => toggle(kb, on)}
            />
            <StatusBadge status={kb.status} />
          </li>
        ))}
        {gone.map((kb) => (
          <li key={kb.knowledge_base_id ?? kb.knowledge_base_name} className={s.listItem}>
            <Checkbox
              label={kb.knowledge_base_name}
              description="No longer available"
              checked
              onCheckedChange={() => setSelected(selected.filter((k) => k !== kb))}
            />
          </li>
        ))}
      </ul>
      <div>
        <Button size="sm" variant="secondary" onClick={() => upload.send({ type: 'dialog.open' })}>
          <PlusIcon />
          Upload a knowledge base
        </Button>
      </div>
      {/* mounted only while open: a new upload starts empty; a refused one keeps its entries */}
      {uploadOpen ? <UploadDialog upload={upload} /> : null}
    </Section>
  );
});

type UploadActor = ReturnType<typeof useActorRef<typeof knowledgeBaseUploadMachine>>;

function UploadDialog({ upload }: { upload: UploadActor }) {
  const uploading = useSelector(upload, (snap) => snap.hasTag('uploading'));
  const serverError = useSelector(upload, (snap) => snap.context.error);
  const [name, setName] = useState('');
  const [files, setFiles] = useState<File[]>([]);
  const [text, setText] = useState('');
  const [urls, setUrls] = useState('');
  const [autoRefresh, setAutoRefresh] = useState(false);
  const [problem, setProblem] = useState<string>();

  const submit = () => {
    const urlList = urls
      .split(/\s+/)
      .map((u) => u.trim())
      .filter(Boolean);
    if (!name.trim()) return setProblem(KB_MESSAGES.nameRequired);
    if (files.length === 0 && !text.trim() && urlList.length === 0) return setProblem(KB_MESSAGES.noSources);
    const big = files.find((file) => file.size > KB_FILE_MAX_BYTES);
    if (big) return setProblem(KB_MESSAGES.fileTooLarge(big.name));
    setProblem(undefined);
    upload.send({
      type: 'upload.submit',
      knowledgeBase: {
        name: name.trim(),
        files,
        texts: text.trim() ? [{ title: name.trim(), text }] : [],
        urls: urlList,
        enableAutoRefresh: autoRefresh,
      },
    });
  };
  const close = () => {
    if (uploading) return;
    upload.send({ type: 'dialog.close' });
  };
  const error = problem ?? serverError;

  return (
    <Dialog
      open
      onClose={close}
      title="Upload a knowledge base"
      description="TXT, MD, CSV, HTML or PDF files up to 10 MB each, text, or web addresses."
      footer={
        <>
          <Button variant="secondary" onClick={close} disabled={uploading}>
            Cancel
          </Button>
          <Button onClick={submit} loading={uploading}>
            Upload
          </Button>
        </>
      }
    >
      <form
        className={s.stack}
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <TextField label="Knowledge base name" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} />
        <TextField
          id="kb-files"
          label="Files"
          type="file"
          multiple
          accept={KB_FILE_ACCEPT}
          className={s.fileInput}
          hint={files.length ? files.map((file) => file.name).join(', ') : undefined}
          onChange={(e) => setFiles([...(e.target.files ?? [])])}
        />
        <Textarea label="Text (optional)" rows={4} value={text} onChange={(e) => setText(e.target.value)} />
        <Textarea
          label="Web addresses (optional)"
          rows={2}
          value={urls}
          placeholder="https://example.com/faq"
          hint="One per line. They are kept for a later refresh."
          onChange={(e) => setUrls(e.target.value)}
        />
        <Switch label="Auto refresh" labelFirst checked={autoRefresh} onCheckedChange={setAutoRefresh} />
        {error ? (
          <p className={s.error} role="alert">
            {error}
          </p>
        ) : null}
      </form>
    </Dialog>
  );
}
