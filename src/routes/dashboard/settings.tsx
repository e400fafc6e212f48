import { createFileRoute } from '@tanstack/react-router';
import { type FormEvent, useEffect, useState } from 'react';
import * as v from 'valibot';
import { companySettings } from '../../api/company-settings';
import { AUDIT_ACTION_LABELS, type AuditAction } from '../../api/contract/audit';
import {
  type CompanySettings,
  CompanySettingsSchema,
  DATA_STORAGE_LABELS,
  DATA_STORAGE_LEVELS,
  type DataStorage,
  RETENTION_CHOICES,
  RETENTION_MAX_DAYS,
} from '../../api/contract/data-storage';
import { ApiError } from '../../api/errors';
import { Button } from '../../ui/button/button';
import * as pn from '../../ui/panel/panel.css';
import { Select } from '../../ui/select/select';
import { TextField } from '../../ui/text-field/text-field';
import { noSearch } from '../-lib/search';
import { useQuery } from '../-lib/useQuery';
import { formatDateTime } from './-components/format';
import { PageHeader } from './-components/PageHeader';
import * as p from './-components/page.css';
import { LoadError, Loading } from './-components/QueryStates';

/**
 * Settings, reached from the account menu. Company: how long call content is kept (transcripts,
 * recordings, analysis text; the calls themselves stay for billing) and the data storage of new agents.
 * Audit log: the latest entries of who did what.
 */
export const Route = createFileRoute('/dashboard/settings')({
  validateSearch: noSearch,
  component: SettingsPage,
});

function SettingsPage() {
  return (
    <>
      <PageHeader title="Settings" description="Your company's data retention and who did what." />
      <CompanySection />
      <AuditLogSection />
    </>
  );
}

type RetentionChoice = 'keep' | `${(typeof RETENTION_CHOICES)[number]}` | 'custom';
const RETENTION_OPTIONS: { value: RetentionChoice; label: string }[] = [
  { value: 'keep', label: 'Keep (never delete)' },
  ...RETENTION_CHOICES.map((d) => ({ value: `${d}` as RetentionChoice, label: `${d} days` })),
  { value: 'custom', label: 'Another number of days' },
];

const choiceOf = (days: number | null): RetentionChoice =>
  days === null ? 'keep' : (RETENTION_CHOICES as readonly number[]).includes(days) ? (`${days}` as RetentionChoice) : 'custom';

function CompanySection() {
  const query = useQuery('company-settings', () => companySettings.get({ notify: false }));
  if (query.data) return <CompanyForm initial={query.data.data} />;
  if (query.error !== undefined && !query.loading)
    return <LoadError what="Could not load your company settings." error={query.error} onRetry={query.reload} />;
  return <Loading label="Loading company settings" />;
}

function CompanyForm({ initial }: { initial: CompanySettings }) {
  const [choice, setChoice] = useState<RetentionChoice>(choiceOf(initial.retention_days));
  const [custom, setCustom] = useState(initial.retention_days === null ? '' : String(initial.retention_days));
  const [storage, setStorage] = useState<DataStorage>(initial.default_data_storage);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [fieldError, setFieldError] = useState<string | null>(null);
  // a change after a save hides its confirmation
  // biome-ignore lint/correctness/useExhaustiveDependencies: the inputs are the trigger
  useEffect(() => setSaved(null), [choice, custom, storage]);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setFieldError(null);
    const days = choice === 'keep' ? null : choice === 'custom' ? Number(custom.trim() || Number.NaN) : Number(choice);
    const parsed = v.safeParse(CompanySettingsSchema, { retention_days: days, default_data_storage: storage });
    if (!parsed.success) {
      setFieldError(parsed.issues[0].message);
      return;
    }
    setSaving(true);
    try {
      const res = await companySettings.save(parsed.output, { notify: false });
      setSaved(res.msg ?? 'Settings saved.');
    } catch (err) {
      // the inputs stay as typed
      setError(err instanceof ApiError && err.serverMessage ? err.serverMessage : 'The settings could not be saved. Try again.');
    } finally {
      setSaving(false);
    }
  };

  return (
    <form className={`${pn.panel} ${pn.panelBody}`} noValidate onSubmit={onSubmit} aria-label="Company">
      <div>
        <h2 className={p.sectionTitle}>Company</h2>
        <p className={p.muted}>
          Data retention: call transcripts, recordings and analysis text older than this are deleted every hour. The calls
          themselves (time, duration, numbers, status, cost) are kept for billing.
        </p>
      </div>
      {error ? (
        <p className={p.alert} role="alert">
          {error}
        </p>
      ) : null}
      <Select<RetentionChoice> label="Data retention" value={choice} onChange={setChoice} options={RETENTION_OPTIONS} />
      {choice === 'custom' ? (
        <TextField
          label="Days to keep call content"
          inputMode="numeric"
          value={custom}
          onChange={(e) => setCustom(e.target.value)}
          hint={`A whole number of days from 1 to ${RETENTION_MAX_DAYS}.`}
          error={fieldError ?? undefined}
        />
      ) : fieldError ? (
        <p className={p.alert} role="alert">
          {fieldError}
        </p>
      ) : null}
      <Select<DataStorage>
        label="Default data storage for new agents"
        value={storage}
        onChange={setStorage}
        options={DATA_STORAGE_LEVELS.map((level) => ({ value: level, label: DATA_STORAGE_LABELS[level] }))}
        hint="What new agents keep of their calls; each agent can change it."
      />
      <div className={p.row}>
        <Button type="submit" loading={saving}>
          Save settings
        </Button>
        {saved ? (
          <span role="status" className={p.muted}>
            {saved}
          </span>
        ) : null}
      </div>
    </form>
  );
}

const AUDIT_PAGE = 20;

function AuditLogSection() {
  const [page, setPage] = useState(1);
  const query = useQuery(`audit-log/${page}`, () => companySettings.auditLog({ page, limit: AUDIT_PAGE }, { notify: false }), {
    keepPrevious: true,
  });
  const data = query.data?.data;
  const pages = data ? Math.max(1, Math.ceil(data.total / AUDIT_PAGE)) : 1;
  return (
    <section className={pn.panel} aria-labelledby="audit-log-title">
      <div className={pn.panelBody}>
        <h2 id="audit-log-title" className={p.sectionTitle}>
          Audit log
        </h2>
        {data ? null : query.error !== undefined && !query.loading ? (
          <LoadError what="Could not load the audit log." error={query.error} onRetry={query.reload} />
        ) : (
          <Loading label="Loading the audit log" />
        )}
        {data && data.entries.length === 0 ? <p className={p.muted}>Nothing recorded yet.</p> : null}
      </div>
      {data && data.entries.length > 0 ? (
        <>
          <div className={pn.tableWrap}>
            <table className={pn.table} aria-label="Audit log">
              <thead>
                <tr>
                  <th className={pn.th}>Time</th>
                  <th className={pn.th}>Who</th>
                  <th className={pn.th}>What</th>
                  <th className={pn.th}>On</th>
                  <th className={pn.th}>From</th>
                </tr>
              </thead>
              <tbody>
                {data.entries.map((e, i) => (
                  <tr key={`${e.time}-${i}`}>
                    <td className={pn.td}>{formatDateTime(e.time)}</td>
                    <td className={pn.td}>{e.actor}</td>
                    <td className={pn.td}>{AUDIT_ACTION_LABELS[e.action as AuditAction] ?? e.action}</td>
                    <td className={pn.td}>{e.target}</td>
                    <td className={pn.td}>{e.ip || '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className={`${pn.panelBody} ${p.row}`}>
            <Button variant="secondary" disabled={page <= 1 || query.loading} onClick={() => setPage(page - 1)}>
              Newer
            </Button>
            <span className={p.muted}>
              Page {page} of {pages}
            </span>
            <Button variant="secondary" disabled={page >= pages || query.loading} onClick={() => setPage(page + 1)}>
              Older
            </Button>
          </div>
        </>
      ) : null}
    </section>
  );
}
