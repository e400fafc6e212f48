import { useActorRef, useSelector } from '@xstate/react';
import { type FormEvent, memo, useCallback, useEffect, useRef, useState } from 'react';
import { editorFormToSavePayload } from '../../../../api/contract/agent/editor-form';
import { NEW_AGENT_ID, type StartConversationBody } from '../../../../api/contract/call-runtime';
import { type ChatItem, testChatMachine } from '../../../../machines/testChat.machine';
import { voicePreviewMachine } from '../../../../machines/voicePreview.machine';
import { webCallMachine } from '../../../../machines/webCall.machine';
import { Button } from '../../../../ui/button/button';
import { PlayIcon, XIcon } from '../../../../ui/icons';
import { Spinner } from '../../../../ui/spinner/spinner';
import { TextField } from '../../../../ui/text-field/text-field';
import { Textarea } from '../../../../ui/textarea/textarea';
import { FunctionCall } from '../../-components/function-call/FunctionCall';
import { UNNAMED_AGENT } from './AgentEditor';
import * as s from './editor.css';
import { type EditorActor, useEditor } from './editor-context';
import { ProviderProblem } from './ProviderProblem';
import * as t from './tests.css';
import { WebCallDialog } from './WebCallDialog';

/**
 * What a test sends: the agent as it is in the editor now (the save payload, unsaved edits included), its
 * id ('new' before the first save) and the Dynamic Variables' test values.
 */
export function conversationRequest(editor: EditorActor): StartConversationBody {
  const { context } = editor.getSnapshot();
  const payload = editorFormToSavePayload(context.form);
  const variables: Record<string, string> = {};
  for (const row of context.form.dynamicVariables) if (row.name.trim()) variables[row.name.trim()] = row.value;
  return {
    agent_id: context.agent?._id ?? NEW_AGENT_ID,
    agent: { ...payload, name: payload.name || UNNAMED_AGENT },
    dynamic_variables: variables,
  };
}

/** The three ways to try the agent: Test Audio, Test LLM (chat) and Test (a web call). */
export const TestButtons = memo(function TestButtons() {
  const editor = useEditor();
  const [audioOpen, setAudioOpen] = useState(false);
  const chat = useActorRef(testChatMachine);
  const call = useActorRef(webCallMachine);
  const chatOpen = useSelector(chat, (snap) => !snap.matches('closed'));
  const [callWindow, setCallWindow] = useState(false);

  return (
    <>
      <div className={s.card}>
        <h2 className={s.lead}>Try the agent</h2>
        <div className={s.row}>
          <Button variant="secondary" aria-expanded={audioOpen} onClick={() => setAudioOpen(!audioOpen)}>
            Test Audio
          </Button>
          <Button
            variant="secondary"
            aria-expanded={chatOpen}
            onClick={() =>
              chat.send(chatOpen ? { type: 'chat.close' } : { type: 'chat.start', request: conversationRequest(editor) })
            }
          >
            Test LLM
          </Button>
          <Button variant="secondary" aria-haspopup="dialog" onClick={() => setCallWindow(true)}>
            Test
          </Button>
        </div>
        {audioOpen ? <VoicePreview editor={editor} /> : null}
      </div>
      {chatOpen ? <ChatPanel actor={chat} editor={editor} /> : null}
      <WebCallDialog
        open={callWindow}
        actor={call}
        request={() => conversationRequest(editor)}
        onClose={() => {
          call.send({ type: 'call.close' });
          setCallWindow(false);
        }}
      />
    </>
  );
});

/** Test Audio: the welcome message (or a typed sentence) in the agent's voice, with Play / Stop. */
function VoicePreview({ editor }: { editor: EditorActor }) {
  const actor = useActorRef(voicePreviewMachine);
  const loading = useSelector(actor, (snap) => snap.matches('loading'));
  const playing = useSelector(actor, (snap) => snap.matches('playing'));
  const error = useSelector(actor, (snap) => snap.context.error);
  const errorLink = useSelector(actor, (snap) => snap.context.errorLink);
  const [text, setText] = useState('');
  const play = () => {
    const { agent_id, agent } = conversationRequest(editor);
    actor.send({ type: 'preview.play', request: { agent_id, agent, ...(text.trim() ? { text: text.trim() } : {}) } });
  };
  return (
    <section className={s.stack} aria-label="Test Audio">
      <TextField
        label="Sentence to speak"
        hint="Leave empty to hear the welcome message."
        value={text}
        maxLength={500}
        onChange={(e) => setText(e.target.value)}
      />
      <div className={t.stateLine}>
        {loading || playing ? (
          <Button variant="secondary" aria-busy={loading || undefined} onClick={() => actor.send({ type: 'preview.stop' })}>
            {loading ? <Spinner size="sm" decorative /> : null}
            Stop
          </Button>
        ) : (
          <Button variant="secondary" onClick={play}>
            <PlayIcon />
            Play
          </Button>
        )}
        <span className={s.muted} aria-live="polite">
          {loading ? 'Loading the voice…' : playing ? 'Playing…' : ''}
        </span>
      </div>
      {error ? <ProviderProblem message={error} link={errorLink} /> : null}
    </section>
  );
}

type ChatActor = ReturnType<typeof useActorRef<typeof testChatMachine>>;

/** Test LLM: the chat beside the editor. */
function ChatPanel({ actor, editor }: { actor: ChatActor; editor: EditorActor }) {
  const items = useSelector(actor, (snap) => snap.context.items);
  const starting = useSelector(actor, (snap) => snap.matches('starting'));
  const replying = useSelector(actor, (snap) => snap.matches('replying'));
  const ready = useSelector(actor, (snap) => snap.matches('ready'));
  const ended = useSelector(actor, (snap) => snap.matches('ended'));
  const error = useSelector(actor, (snap) => snap.context.error);
  const errorLink = useSelector(actor, (snap) => snap.context.errorLink);
  const [draft, setDraft] = useState('');
  const logRef = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLTextAreaElement>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: follow the newest line as the reply grows
  useEffect(() => {
    const el = logRef.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [items]);
  useEffect(() => {
    if (ready) input.current?.focus();
  }, [ready]);

  const send = useCallback(
    (e: FormEvent) => {
      e.preventDefault();
      if (!draft.trim() || !ready) return;
      actor.send({ type: 'message.send', content: draft });
      setDraft('');
    },
    [actor, draft, ready],
  );

  return (
    <section className={s.card} aria-labelledby="test-llm-title">
      <div className={t.headRow}>
        <h2 id="test-llm-title" className={t.title}>
          Test LLM
        </h2>
        <div className={t.actions}>
          <Button
            size="sm"
            variant="secondary"
            onClick={() => actor.send({ type: 'chat.start', request: conversationRequest(editor) })}
          >
            New chat
          </Button>
          <Button size="iconSm" variant="ghost" aria-label="Close chat" onClick={() => actor.send({ type: 'chat.close' })}>
            <XIcon />
          </Button>
        </div>
      </div>
      <div ref={logRef} className={t.log} role="log" aria-label="Chat with the agent" aria-live="polite">
        {starting ? (
          <span className={s.muted}>
            <Spinner size="sm" decorative /> Starting the chat…
          </span>
        ) : null}
        {items.map((item, i) => (
          <ChatLine key={i} item={item} />
        ))}
        {replying && items.at(-1)?.kind !== 'agent' ? <Spinner size="sm" label="The agent is answering" /> : null}
      </div>
      {error ? <ProviderProblem message={error} link={errorLink} /> : null}
      <form className={t.composer} onSubmit={send}>
        <Textarea
          ref={input}
          label="Message"
          hideLabel
          containerClassName={s.grow}
          placeholder={ended ? 'The chat has ended.' : 'Type a message…'}
          rows={2}
          maxLength={4000}
          value={draft}
          disabled={ended || starting || error !== null}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey) send(e);
          }}
        />
        {replying ? (
          <Button type="button" variant="secondary" onClick={() => actor.send({ type: 'reply.stop' })}>
            Stop
          </Button>
        ) : (
          <Button type="submit" disabled={!ready || !draft.trim()}>
            Send
          </Button>
        )}
      </form>
    </section>
  );
}

function ChatLine({ item }: { item: ChatItem }) {
  switch (item.kind) {
    case 'user':
      return (
        <p className={t.user}>
          <span className={t.who}>You</span>
          {item.text}
        </p>
      );
    case 'agent':
      return (
        <p className={t.agent}>
          <span className={t.who}>Agent</span>
          {item.text}
        </p>
      );
    case 'tool':
      return <FunctionCall call={item} className={t.call} />;
    case 'error':
      return (
        <p className={t.problem} role="alert">
          {item.text}
        </p>
      );
    case 'node':
      return (
        <p className={t.event}>
          Step: {item.name} <code>{item.nodeId}</code>
        </p>
      );
    case 'ended':
      return <p className={t.event}>The agent ended the chat.</p>;
  }
}
