import { createFileRoute, Link } from '@tanstack/react-router';
import { Fragment, type ReactNode, useRef, useState } from 'react';
import { callRuntime } from '../../api/call-runtime';
import { CALL_TYPE_LABELS, disconnectionReasonLabel, formatCallDuration } from '../../api/contract/call';
import type { CallAnalysis, CallDetail, Sentiment, TranscriptTurn, TurnLatency } from '../../api/contract/call-runtime';
import { ApiError } from '../../api/errors';
import { AlertDialog } from '../../ui/alert-dialog/alert-dialog';
import { Button } from '../../ui/button/button';
import { AlertIcon, ArrowLeftIcon, HistoryIcon } from '../../ui/icons';
import { noSearch } from '../-lib/search';
import { useQuery } from '../-lib/useQuery';
import { CallStatusBadge } from './-components/call-history/call-columns';
import * as s from './-components/call-history/call-detail.css';
import { formatDateTime, formatUsd } from './-components/format';
import { FunctionCall } from './-components/function-call/FunctionCall';
import { EmptyState } from './-components/PageHeader';
import { LoadError, Loading } from './-components/QueryStates';

/**
 * One call's detail, opened from its row in Call History: the transcript with its times and
 * function calls, the recording (the turn being played is highlighted; a turn's time plays from there),
 * the latency of each agent answer as a small chart with a table of its numbers, and the cost breakdown.
 */
export const Route = createFileRoute('/dashboard/call-history_/$callId')({
  validateSearch: noSearch,
  component: CallDetailPage,
});

function CallDetailPage() {
  const { callId } = Route.useParams();
  const query = useQuery(`call-detail/${callId}`, () => callRuntime.callDetail(callId, { notify: false }));
  const notFound = query.error instanceof ApiError && query.error.status === 404;
  return (
    <div className={s.page}>
      <div>
        <Button variant="ghost" render={<Link to="/dashboard/call-history" />}>
          <ArrowLeftIcon />
          Back to Call History
        </Button>
      </div>
      {query.data ? (
        <Detail call={query.data.data} onContentDeleted={query.reload} />
      ) : notFound ? (
        <EmptyState
          icon={HistoryIcon}
          title="Call not found"
          text="This call does not exist or belongs to another company."
          action={<Button render={<Link to="/dashboard/call-history" />}>Back to Call History</Button>}
        />
      ) : query.error !== undefined && !query.loading ? (
        <LoadError what="Could not load this call." error={query.error} onRetry={query.reload} />
      ) : (
        <Loading label="Loading call" />
      )}
    </div>
  );
}

/** m:ss of ms from the start of the call. */
export const clock = (ms: number) => {
  const total = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
};

/** The index of the turn playing at `ms`: the last one started at or before it (none before the first). */
export function turnAt(turns: readonly TranscriptTurn[], ms: number): number {
  let found = -1;
  turns.forEach((t, i) => {
    if (t.start_ms <= ms && (t.text || t.tool_calls?.length)) found = i;
  });
  return found;
}

const TITLES: Record<CallDetail['type'], string> = {
  inbound: 'Inbound call',
  outbound: 'Outbound call',
  web: CALL_TYPE_LABELS.web,
  chat: CALL_TYPE_LABELS.chat,
};

/**
 * 'Delete content': asks first, then removes the call's transcript, recording and analysis text for good
 * (DELETE /call/{id}); the call's row and its numbers stay. A failure keeps the dialog open with the reason.
 */
function DeleteContent({ call, onDeleted }: { call: CallDetail; onDeleted: () => void }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const live = call.status === 'registered' || call.status === 'ongoing';
  if (call.content_deleted_at) return null;
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await callRuntime.deleteCallContent(call._id, { notify: false });
      setOpen(false);
      onDeleted();
    } catch (e) {
      setError(e instanceof ApiError && e.serverMessage ? e.serverMessage : 'The content could not be deleted. Try again.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button
        variant="secondary"
        onClick={() => setOpen(true)}
        disabled={live}
        title={live ? 'The call is still going on: its content can be deleted once it has ended.' : undefined}
      >
        Delete content
      </Button>
      <AlertDialog
        open={open}
        onClose={() => {
          setOpen(false);
          setError(null);
        }}
        onConfirm={() => void confirm()}
        title="Delete this call's content?"
        description="The transcript, function calls, recording and analysis text are removed for good, here and in exports and webhooks. The call's time, duration, numbers, status and cost stay."
        confirmLabel="Delete content"
        confirming={busy}
        confirmingLabel="Deleting..."
      >
        {error ? (
          <p role="alert" className={s.muted}>
            {error}
          </p>
        ) : null}
      </AlertDialog>
    </>
  );
}

/** Why a call shows less than was said: the agent's data storage when the call ran. */
const WITHHELD: Record<NonNullable<CallDetail['content_withheld']>, { transcript: string; recording: string }> = {
  metadata_only: {
    transcript:
      "No transcript, recording, analysis text or function calls were kept: the agent's data storage was Metadata only when this call ran.",
    recording: "No recording was kept: the agent's data storage was Metadata only.",
  },
  everything_but_pii: {
    transcript:
      "Personal data (phone numbers, emails, birth dates, SSNs, card numbers, addresses, names) was replaced by markers such as [PHONE]: the agent's data storage was Everything but personal data.",
    recording: "No recording was kept: the agent's data storage was Everything but personal data.",
  },
};

function Detail({ call, onContentDeleted }: { call: CallDetail; onContentDeleted: () => void }) {
  const audio = useRef<HTMLAudioElement>(null);
  const [playingMs, setPlayingMs] = useState<number | null>(null);
  const current = playingMs === null ? -1 : turnAt(call.transcript, playingMs);
  const playFrom = (ms: number) => {
    const el = audio.current;
    if (!el) return;
    el.currentTime = ms / 1000;
    void el.play().catch(() => {});
  };
  return (
    <>
      <header className={s.head}>
        <h1 className={s.title}>
          {TITLES[call.type]} with {call.agent_name || 'an agent'}
        </h1>
        <CallStatusBadge status={call.status} />
        <DeleteContent call={call} onDeleted={onContentDeleted} />
      </header>
      {call.content_deleted_at ? (
        <p role="status" className={s.muted}>
          The content of this call was deleted on {formatDateTime(call.content_deleted_at)}. Its time, duration, numbers, status
          and cost are kept.
        </p>
      ) : null}
      <div className={s.grid}>
        <div className={s.page}>
          <section className={s.card} aria-labelledby="recording-title">
            <h2 id="recording-title" className={s.cardTitle}>
              Recording
            </h2>
            {call.recording_url ? (
              // biome-ignore lint/a11y/useMediaCaption: the transcript beside it is the recording's text
              <audio
                ref={audio}
                className={s.audio}
                controls
                preload="metadata"
                src={call.recording_url}
                aria-label="Call recording"
                onTimeUpdate={(e) => setPlayingMs(e.currentTarget.currentTime * 1000)}
                onSeeked={(e) => setPlayingMs(e.currentTarget.currentTime * 1000)}
              />
            ) : (
              <p className={s.muted}>
                {call.content_deleted_at
                  ? 'The recording was deleted.'
                  : call.type !== 'chat' && call.content_withheld
                    ? WITHHELD[call.content_withheld].recording
                    : `This call has no recording${call.type === 'chat' ? ' (a chat has no audio)' : ''}.`}
              </p>
            )}
          </section>
          <section className={s.card} aria-labelledby="transcript-title">
            <h2 id="transcript-title" className={s.cardTitle}>
              Transcript
            </h2>
            {call.content_withheld ? (
              <p className={s.muted} role="note">
                {WITHHELD[call.content_withheld].transcript}
              </p>
            ) : null}
            {call.transcript.length === 0 ? (
              call.content_withheld === 'metadata_only' && !call.content_deleted_at ? null : (
                <p className={s.muted}>
                  {call.content_deleted_at ? 'The transcript was deleted.' : 'Nothing was said in this call.'}
                </p>
              )
            ) : (
              <ol className={s.turns} aria-label="Transcript">
                {call.transcript.map((turn, i) => (
                  <li key={i} className={s.turn} aria-current={i === current ? 'true' : undefined}>
                    {call.recording_url ? (
                      <button
                        type="button"
                        className={s.stamp}
                        aria-label={`Play from ${clock(turn.start_ms)}`}
                        onClick={() => playFrom(turn.start_ms)}
                      >
                        {clock(turn.start_ms)}
                      </button>
                    ) : (
                      <span className={s.stamp}>{clock(turn.start_ms)}</span>
                    )}
                    <div>
                      <span className={s.role}>{turn.role === 'user' ? 'Caller' : 'Agent'}</span>
                      {turn.text}
                      {turn.interrupted ? <span className={s.cut}>(interrupted)</span> : null}
                      {(turn.tool_calls ?? []).map((c, j) => (
                        <FunctionCall key={j} call={c} className={s.functionCall} />
                      ))}
                    </div>
                  </li>
                ))}
              </ol>
            )}
          </section>
        </div>
        <div className={s.page}>
          <section className={s.card} aria-labelledby="about-title">
            <h2 id="about-title" className={s.cardTitle}>
              About the call
            </h2>
            <dl className={s.facts}>
              <dt className={s.factName}>Started</dt>
              <dd>{call.start_time ? formatDateTime(call.start_time) : '—'}</dd>
              <dt className={s.factName}>Duration</dt>
              <dd>{formatCallDuration(call.duration)}</dd>
              <dt className={s.factName}>Ended because</dt>
              <dd>{disconnectionReasonLabel(call.disconnection_reason) || call.disconnection_reason || '—'}</dd>
              {call.error_message ? (
                <>
                  <dt className={s.factName}>Error</dt>
                  <dd>{call.error_message}</dd>
                </>
              ) : null}
              {call.usage ? (
                <>
                  <dt className={s.factName}>Model</dt>
                  <dd>{call.usage.llm_model}</dd>
                </>
              ) : null}
            </dl>
          </section>
          <AnalysisSection analysis={call.analysis} />
          <LatencySection latency={call.latency} />
          <CostSection call={call} />
        </div>
      </div>
    </>
  );
}

const SENTIMENT_LABELS: Record<Sentiment, string> = { positive: 'Positive', neutral: 'Neutral', negative: 'Negative' };

/** A custom field's value in words (null: the call did not say). */
const fieldValue = (value: string | number | boolean | null) =>
  value === null ? '—' : typeof value === 'boolean' ? (value ? 'Yes' : 'No') : String(value);

/**
 * The post-call analysis: summary, the caller's sentiment, whether the call achieved its goal
 * and the agent's custom fields; while it is being made, and when it failed after its retries, it says so.
 */
function AnalysisSection({ analysis }: { analysis: CallAnalysis | null }) {
  let body: ReactNode;
  if (analysis === null) body = <p className={s.muted}>No analysis is made for this call.</p>;
  else if (analysis.status === 'pending')
    body = (
      <p className={s.muted} role="status">
        The analysis is being made. It appears here when it is ready.
      </p>
    );
  else if (analysis.status === 'failed')
    body = (
      <p className={s.muted} role="alert">
        <AlertIcon size={14} /> Analysis failed{analysis.error ? `: ${analysis.error}` : '.'}
      </p>
    );
  else
    body = (
      <dl className={s.facts}>
        <dt className={s.factName}>Summary</dt>
        <dd>{analysis.summary || '—'}</dd>
        <dt className={s.factName}>Sentiment</dt>
        <dd>{analysis.sentiment ? SENTIMENT_LABELS[analysis.sentiment] : '—'}</dd>
        <dt className={s.factName}>Successful</dt>
        <dd>{analysis.successful === null ? '—' : analysis.successful ? 'Yes' : 'No'}</dd>
        {Object.entries(analysis.custom).map(([name, value]) => (
          <Fragment key={name}>
            <dt className={s.factName}>{name}</dt>
            <dd>{fieldValue(value)}</dd>
          </Fragment>
        ))}
      </dl>
    );
  return (
    <section className={s.card} aria-labelledby="analysis-title">
      <h2 id="analysis-title" className={s.cardTitle}>
        Post Call Analysis
      </h2>
      {body}
    </section>
  );
}

const PARTS = [
  { key: 'stt_ms', label: 'STT', colour: '#0ea5e9' },
  { key: 'wait_ms', label: 'End-of-turn wait', colour: '#cbd5e1' },
  { key: 'llm_ms', label: 'LLM first token', colour: '#8b5cf6' },
  { key: 'tts_ms', label: 'TTS first byte', colour: '#f59e0b' },
] as const satisfies readonly { key: keyof TurnLatency; label: string; colour: string }[];

/** Per agent answer: end of the caller's speech -> first agent audio, split in its parts. */
function LatencySection({ latency }: { latency: TurnLatency[] }) {
  const max = Math.max(1, ...latency.map((l) => Math.max(l.total_ms, l.stt_ms + l.wait_ms + l.llm_ms + l.tts_ms)));
  const rowH = 18;
  const labelW = 56;
  const width = 320;
  return (
    <section className={s.card} aria-labelledby="latency-title">
      <h2 id="latency-title" className={s.cardTitle}>
        Latency per turn
      </h2>
      {latency.length === 0 ? (
        <p className={s.muted}>No agent answer to measure in this call.</p>
      ) : (
        <>
          <svg width="100%" viewBox={`0 0 ${width} ${latency.length * (rowH + 6)}`} aria-hidden="true" focusable="false">
            {latency.map((l, i) => {
              let x = labelW;
              const y = i * (rowH + 6);
              return (
                <g key={i}>
                  <text x={0} y={y + rowH - 5} fontSize="11" fill="currentColor">
                    Turn {l.turn}
                  </text>
                  {PARTS.map((p) => {
                    const w = (l[p.key] / max) * (width - labelW);
                    const rect = <rect key={p.key} x={x} y={y} width={Math.max(0, w)} height={rowH} fill={p.colour} />;
                    x += w;
                    return rect;
                  })}
                </g>
              );
            })}
          </svg>
          <div className={s.legend} aria-hidden="true">
            {PARTS.map((p) => (
              <span key={p.key}>
                <span className={s.swatch} style={{ background: p.colour }} />
                {p.label}
              </span>
            ))}
          </div>
          <table className={s.table}>
            <caption className={s.muted}>Milliseconds from the end of the caller's speech to the agent's first audio</caption>
            <thead>
              <tr>
                <th scope="col" className={s.cell}>
                  Turn
                </th>
                {PARTS.map((p) => (
                  <th key={p.key} scope="col" className={s.num}>
                    {p.label}
                  </th>
                ))}
                <th scope="col" className={s.num}>
                  Total
                </th>
              </tr>
            </thead>
            <tbody>
              {latency.map((l, i) => (
                <tr key={i}>
                  <th scope="row" className={s.cell}>
                    {l.turn}
                  </th>
                  {PARTS.map((p) => (
                    <td key={p.key} className={s.num}>
                      {Math.round(l[p.key])}
                    </td>
                  ))}
                  <td className={s.num}>{Math.round(l.total_ms)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

function CostSection({ call }: { call: CallDetail }) {
  const u = call.usage;
  const rows = [
    { label: 'Speech to text', detail: u ? `${u.stt_seconds.toFixed(1)} s (${u.stt_provider})` : '', value: call.cost.stt },
    {
      label: 'LLM',
      detail: u ? `${u.llm_input_tokens} in / ${u.llm_output_tokens} out tokens (${u.llm_model})` : '',
      value: call.cost.llm,
    },
    { label: 'Text to speech', detail: u ? `${u.tts_characters} characters (${u.tts_provider})` : '', value: call.cost.tts },
    { label: 'Telephony', detail: u ? `${u.telephony_minutes.toFixed(2)} min` : '', value: call.cost.telephony },
  ];
  return (
    <section className={s.card} aria-labelledby="cost-title">
      <h2 id="cost-title" className={s.cardTitle}>
        Cost
      </h2>
      {u === null && call.cost.total === 0 ? (
        <p className={s.muted}>
          <AlertIcon size={14} /> No usage was measured for this call.
        </p>
      ) : null}
      <table className={s.table} aria-label="Cost breakdown">
        <tbody>
          {rows.map((r) => (
            <tr key={r.label}>
              <th scope="row" className={s.cell}>
                {r.label}
                {r.detail ? <span className={s.tool}>{r.detail}</span> : null}
              </th>
              <td className={s.num}>{formatUsd(r.value)}</td>
            </tr>
          ))}
          <tr>
            <th scope="row" className={s.cell}>
              Total
            </th>
            <td className={s.num}>{formatUsd(call.cost.total)}</td>
          </tr>
        </tbody>
      </table>
    </section>
  );
}
