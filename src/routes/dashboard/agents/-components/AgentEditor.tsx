import { Link, useBlocker, useNavigate } from '@tanstack/react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { memo, type ReactNode, Suspense, useRef, useState } from 'react';
import type { AgentKind } from '../../../../api/contract/agent/flow';
import { agentCostPerMinute, DEFAULT_LATENCY } from '../../../../api/contract/models';
import { notify } from '../../../../app/toaster';
import { agentEditorMachine } from '../../../../machines/agentEditor.machine';
import { browserStorage, readTokens } from '../../../../session/storage';
import { AlertDialog } from '../../../../ui/alert-dialog/alert-dialog';
import { Button } from '../../../../ui/button/button';
import { AlertIcon, ArrowLeftIcon, BotIcon } from '../../../../ui/icons';
import { Spinner } from '../../../../ui/spinner/spinner';
import { TextField } from '../../../../ui/text-field/text-field';
import { lazyNamed } from '../../../-lib/lazy';
import { formatDateTime } from '../../-components/format';
import { EmptyState } from '../../-components/PageHeader';
import { CallMe } from './CallMe';
import {
  LanguagePicker,
  LlmSettings,
  ModelPicker,
  PromptField,
  VoicePicker,
  VoiceSettings,
  WelcomeMessage,
} from './EditorFields';
import { CallSection, PostCallSection, SecuritySection, SpeechSection, WebhookSection } from './EditorSections';
import { DynamicVariables } from './EditorSide';
import { TestButtons } from './EditorTests';
import * as s from './editor.css';
import { type EditorActor, EditorProvider, fieldAttr, focusField, PencilIcon, useEditor, useFieldError } from './editor-context';
import { FunctionsSection } from './functions/FunctionsSection';
import { KnowledgeBaseSection } from './KnowledgeBaseSection';

/** Whether tokens are still stored (the session clears them before it leaves the page at sign-out). */
export const hasStoredSession = () => readTokens(browserStorage()).accessToken !== '';

/** Display name of a new agent whose name is blank. */
export const UNNAMED_AGENT = 'Single-Prompt Agent';
export const UNNAMED_FLOW_AGENT = 'Conversation Flow Agent';

// the canvas (@xyflow/react) loads only with a conversation-flow agent
const FlowWorkspace = lazyNamed(() => import('./flow/FlowWorkspace'), 'FlowWorkspace');

export interface AgentEditorProps {
  /** undefined: a new agent */
  agentId?: string;
  /** a new agent's kind (default single prompt); a saved agent opens in the editor of its own kind */
  kind?: AgentKind;
  /** resolves once the persisted session has been read (voices are asked only then) */
  whenHydrated: () => Promise<unknown>;
  /**
   * whether a session is held: signing out is never held up by the leave guard (sign-out drops drafts).
   * Read from storage, which the session clears before it navigates away.
   */
  signedIn: () => boolean;
}

/** The single-prompt agent editor: one agentEditor actor per visit, shared by the parts through context. */
export function AgentEditor({ agentId, kind, whenHydrated, signedIn }: AgentEditorProps) {
  const navigate = useNavigate();
  const actor = useActorRef(
    agentEditorMachine.provide({
      actions: {
        notify,
        // after the transition, so the leave guard already sees the saved state
        goToList: () => queueMicrotask(() => void navigate({ to: '/dashboard' })),
        focusField: (_, { field }) => requestAnimationFrame(() => focusField(field)),
      },
    }),
    { input: { agentId, kind } },
  );
  const snap = useSelector(
    actor,
    (snapshot) => ({
      loading: snapshot.hasTag('loading'),
      notFound: snapshot.matches('notFound'),
      loadFailed: snapshot.matches('loadFailed'),
      loadError: snapshot.context.loadError,
      flow: snapshot.context.form.kind === 'conversation_flow',
    }),
    (a, b) =>
      a.loading === b.loading &&
      a.notFound === b.notFound &&
      a.loadFailed === b.loadFailed &&
      a.loadError === b.loadError &&
      a.flow === b.flow,
  );

  if (snap.notFound)
    return (
      <EmptyState
        icon={BotIcon}
        title="Agent not found"
        text="This agent does not exist or belongs to another company."
        action={
          <Button render={<Link to="/dashboard" />}>
            <ArrowLeftIcon />
            Back to agents
          </Button>
        }
      />
    );
  if (snap.loadFailed)
    return (
      <EmptyState
        icon={AlertIcon}
        title="The agent could not be loaded"
        text={snap.loadError}
        action={<Button onClick={() => actor.send({ type: 'agent.retry' })}>Retry</Button>}
      />
    );
  if (snap.loading)
    return (
      <div className={s.centered} role="status">
        <Spinner decorative /> Loading agent details...
      </div>
    );

  return (
    <EditorProvider value={actor}>
      <div className={s.page}>
        <EditorHeader />
        <ConflictBanner />
        {snap.flow ? (
          <Suspense
            fallback={
              <div className={s.centered} role="status">
                <Spinner decorative /> Loading the flow editor...
              </div>
            }
          >
            <FlowWorkspace />
          </Suspense>
        ) : null}
        <GlobalSettings flow={snap.flow}>
          <div className={s.columns}>
            <div className={s.column}>
              <div className={s.card}>
                <div className={s.row}>
                  <ModelPicker />
                  <LlmSettings />
                </div>
                <div className={s.row}>
                  <LanguagePicker />
                  <VoiceSettings />
                </div>
                <VoicePicker whenHydrated={whenHydrated} />
                <WelcomeMessage />
                {snap.flow ? null : <PromptField />}
              </div>
            </div>
            <div className={s.column}>
              <FunctionsSection />
              <KnowledgeBaseSection />
              <SpeechSection />
              <CallSection />
              <PostCallSection />
              <SecuritySection />
              <WebhookSection />
            </div>
            <div className={s.column}>
              <TestButtons />
              <DynamicVariables />
              <CallMe />
            </div>
          </div>
        </GlobalSettings>
      </div>
      <DraftDialog actor={actor} />
      <LeaveGuard actor={actor} signedIn={signedIn} />
    </EditorProvider>
  );
}

/** A flow agent's voice, model and other settings: a panel of their own under the canvas. */
function GlobalSettings({ flow, children }: { flow: boolean; children: ReactNode }) {
  if (!flow) return children;
  return (
    <section aria-labelledby="global-settings" className={s.column}>
      <h2 className={s.title} id="global-settings">
        Global settings
      </h2>
      {children}
    </section>
  );
}

/** Back link, the name with its pencil, Save, and the subtitle (the specification's 'Agent editor' header). */
const EditorHeader = memo(function EditorHeader() {
  const actor = useEditor();
  const name = useSelector(actor, (snap) => snap.context.form.agentName);
  const llmModel = useSelector(actor, (snap) => snap.context.form.llmModel);
  const isFlow = useSelector(actor, (snap) => snap.context.form.kind === 'conversation_flow');
  const agentId = useSelector(actor, (snap) => snap.context.agent?._id);
  const saving = useSelector(actor, (snap) => snap.hasTag('saving'));
  const unsaved = useSelector(actor, (snap) => snap.hasTag('unsaved'));
  const nameError = useFieldError('agentName');
  const [editingName, setEditingName] = useState(false);
  const cancelled = useRef(false);

  const commit = (value: string) => {
    setEditingName(false);
    if (cancelled.current) {
      cancelled.current = false;
      return;
    }
    actor.send({ type: 'name.commit', value });
  };

  return (
    <header className={s.header}>
      <div className={s.headerMain}>
        <Button variant="ghost" size="icon" aria-label="Back to agents" render={<Link to="/dashboard" />}>
          <ArrowLeftIcon size={18} />
        </Button>
        <div>
          <div className={s.titleRow} {...fieldAttr('agentName')}>
            {editingName ? (
              <TextField
                label="Agent name"
                hideLabel
                autoFocus
                defaultValue={name}
                containerClassName={s.nameInput}
                maxLength={200}
                onBlur={(e) => commit(e.currentTarget.value)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter') {
                    e.preventDefault();
                    e.currentTarget.blur();
                  } else if (e.key === 'Escape') {
                    cancelled.current = true;
                    e.currentTarget.blur();
                  }
                }}
              />
            ) : (
              <>
                <h1 className={s.title}>{name.trim() || (isFlow ? UNNAMED_FLOW_AGENT : UNNAMED_AGENT)}</h1>
                <Button variant="ghost" size="iconSm" aria-label="Edit agent name" onClick={() => setEditingName(true)}>
                  <PencilIcon />
                </Button>
              </>
            )}
          </div>
          {nameError ? (
            <p className={s.error} role="alert">
              {nameError}
            </p>
          ) : null}
          <p className={s.subtitle}>
            <span>{isFlow ? 'Conversation flow' : 'Single prompt'}</span>
            <span>
              Agent ID: <span className={s.mono}>{agentId ?? 'not saved yet'}</span>
            </span>
            <span>
              LLM ID: <span className={s.mono}>{llmModel}</span>
            </span>
            <span>${agentCostPerMinute(llmModel).toFixed(3)}/min</span>
            <span>{DEFAULT_LATENCY} latency</span>
          </p>
        </div>
      </div>
      <div className={s.headerActions}>
        {unsaved && !saving ? <span className={s.muted}>Unsaved changes</span> : null}
        <Button onClick={() => actor.send({ type: 'agent.save' })} loading={saving}>
          Save
        </Button>
      </div>
    </header>
  );
});

function ConflictBanner() {
  const actor = useEditor();
  const conflict = useSelector(actor, (snap) => snap.hasTag('conflict'));
  if (!conflict) return null;
  return (
    <div className={s.banner} role="alert">
      <span>Someone saved a newer version of this agent. Reload it to continue; your edits stay in a draft you can restore.</span>
      <span className={s.row}>
        <Button size="sm" variant="secondary" onClick={() => actor.send({ type: 'conflict.dismiss' })}>
          Keep editing
        </Button>
        <Button size="sm" onClick={() => actor.send({ type: 'agent.reload' })}>
          Reload
        </Button>
      </span>
    </div>
  );
}

/** Offers the unsaved draft found when the editor opened (after a crash or a reload). */
function DraftDialog({ actor }: { actor: EditorActor }) {
  const offered = useSelector(actor, (snap) => snap.matches('draftOffered'));
  const savedAt = useSelector(actor, (snap) => snap.context.draft?.savedAt);
  return (
    <AlertDialog
      open={offered}
      onClose={() => actor.send({ type: 'draft.discard' })}
      onConfirm={() => actor.send({ type: 'draft.restore' })}
      title="Restore unsaved changes?"
      description={`You have changes to this agent that were not saved${savedAt ? ` (${formatDateTime(savedAt)})` : ''}.`}
      confirmLabel="Restore"
      cancelLabel="Discard"
      destructive={false}
    />
  );
}

/** Leaving with unsaved edits asks first: links and back/forward in the app, and reload or close (beforeunload). */
function LeaveGuard({ actor, signedIn }: { actor: EditorActor; signedIn: () => boolean }) {
  const unsaved = () => actor.getSnapshot().hasTag('unsaved') && signedIn();
  const blocker = useBlocker({ shouldBlockFn: unsaved, enableBeforeUnload: unsaved, withResolver: true });
  return (
    <AlertDialog
      open={blocker.status === 'blocked'}
      onClose={() => blocker.reset?.()}
      onConfirm={() => {
        actor.send({ type: 'edits.discard' });
        blocker.proceed?.();
      }}
      title="Leave without saving?"
      description="Your changes to this agent are not saved. Leaving discards them."
      confirmLabel="Leave"
      cancelLabel="Stay"
    />
  );
}
