import { useState } from 'react';
import type {
  Delivery,
  DeliveryDetail,
  DeliveryListResponse,
  WebhookRef,
  WebhookSettings,
} from '../../../../api/contract/webhook';
import { ApiError } from '../../../../api/errors';
import { deliveriesKey, WEBHOOK_SETTINGS_KEY, webhooks } from '../../../../api/webhooks';
import { toast } from '../../../../app/toaster';
import { Badge, type BadgeTone } from '../../../../ui/badge/badge';
import { Button } from '../../../../ui/button/button';
import { Dialog } from '../../../../ui/dialog/dialog';
import * as pn from '../../../../ui/panel/panel.css';
import { Select } from '../../../../ui/select/select';
import { TextField } from '../../../../ui/text-field/text-field';
import { useQuery } from '../../../-lib/useQuery';
import * as p from '../page.css';
import { resendToast } from './resend';

const failed = (e: unknown) =>
  toast({ title: 'Error', description: e instanceof Error ? e.message : 'Something went wrong', variant: 'destructive' });

const STATUS_TONE: Record<Delivery['status'], BadgeTone> = {
  pending: 'yellow',
  sending: 'blue',
  delivered: 'green',
  failed: 'red',
};
const STATUS_LABEL: Record<Delivery['status'], string> = {
  pending: 'Pending',
  sending: 'Sending',
  delivered: 'Delivered',
  failed: 'Failed',
};

/**
 * 'Webhooks' on the Providers screen: the company-wide webhook URL, the signing secret (shown
 * once in a dialog when it is made or rotated), and the delivery log with each delivery's bodies and
 * 'Resend'.
 */
export function WebhooksSection() {
  const settings = useQuery<{ data: WebhookSettings }>(WEBHOOK_SETTINGS_KEY, () => webhooks.settings({ notify: false }));
  return (
    <section className={`${pn.panel} ${pn.panelBody}`} aria-labelledby="webhooks-heading" style={{ marginTop: '2rem' }}>
      <h2 id="webhooks-heading" className={p.sectionTitle}>
        Webhooks
      </h2>
      <p className={p.muted}>
        Your systems are told when a call starts, ends and is analysed, and when a batch completes. Every request is signed with
        your signing secret (header X-Parley-Signature).
      </p>
      {settings.data ? <UrlForm key={settings.data.data.url} current={settings.data.data.url} /> : null}
      <SecretRow settings={settings.data?.data} />
      <DeliveryLog webhooks={settings.data?.data.webhooks ?? []} />
    </section>
  );
}

function UrlForm({ current }: { current: string }) {
  const [url, setUrl] = useState(current);
  const [error, setError] = useState<string | undefined>();
  const [saving, setSaving] = useState(false);
  const save = async () => {
    setSaving(true);
    setError(undefined);
    try {
      const res = await webhooks.save(url.trim(), { notify: false });
      toast({ title: res.msg });
    } catch (e) {
      if (e instanceof ApiError && e.isRejection) setError(e.fieldErrors.url ?? e.message);
      else failed(e);
    } finally {
      setSaving(false);
    }
  };
  return (
    <form
      className={p.row}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <TextField
        containerClassName={p.spacer}
        label="Webhook URL"
        type="url"
        inputMode="url"
        placeholder="https://"
        value={url}
        error={error}
        hint="Receives every event of every agent, and batch_completed. Empty: none."
        onChange={(e) => setUrl(e.currentTarget.value)}
      />
      <Button type="submit" loading={saving}>
        Save webhook
      </Button>
    </form>
  );
}

function SecretRow({ settings }: { settings: WebhookSettings | undefined }) {
  const [shown, setShown] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const rotate = async () => {
    setBusy(true);
    try {
      const res = await webhooks.rotateSecret({ notify: false });
      setShown(res.data.secret);
    } catch (e) {
      failed(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className={p.row}>
      <span className={p.muted}>
        {settings?.has_secret ? `Signing secret: ending in ${settings.secret_hint}` : 'No signing secret yet.'}
      </span>
      <Button variant="secondary" loading={busy} onClick={() => void rotate()}>
        {settings?.has_secret ? 'Rotate signing secret' : 'Create signing secret'}
      </Button>
      <Dialog
        open={shown !== null}
        onClose={() => setShown(null)}
        title="Signing secret"
        description="Copy it now: it will not be shown again. The previous secret no longer signs requests."
        footer={<Button onClick={() => setShown(null)}>Done</Button>}
      >
        <TextField label="Signing secret" readOnly value={shown ?? ''} onFocus={(e) => e.currentTarget.select()} />
        <Button
          variant="secondary"
          onClick={() => {
            if (shown) void navigator.clipboard?.writeText(shown).then(() => toast({ title: 'Copied' }));
          }}
        >
          Copy secret
        </Button>
      </Dialog>
    </div>
  );
}

const ALL = 'all';

function DeliveryLog({ webhooks: list }: { webhooks: WebhookRef[] }) {
  const [page, setPage] = useState(1);
  const [which, setWhich] = useState(ALL);
  const filter = which === ALL ? undefined : which;
  const log = useQuery<DeliveryListResponse>(
    deliveriesKey(page, filter),
    () => webhooks.deliveries(page, filter, { notify: false }),
    { keepPrevious: true },
  );
  const labelOf = (d: Delivery) =>
    d.webhook === 'company' ? 'Company webhook' : (list.find((w) => w.id === d.agent_id)?.label ?? 'Agent webhook');
  const options = [{ value: ALL, label: 'All webhooks' }, ...list.map((w) => ({ value: w.id, label: w.label }))];
  const [open, setOpen] = useState<DeliveryDetail | null>(null);
  const total = log.data?.data.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / 10));
  const resend = async (d: Delivery) => {
    toast(await resendToast(() => webhooks.resend(d._id, { notify: false })));
  };
  const view = async (d: Delivery) => {
    try {
      setOpen((await webhooks.delivery(d._id, { notify: false })).data);
    } catch (e) {
      failed(e);
    }
  };
  return (
    <div className={p.section}>
      <div className={p.row}>
        <h3 className={p.sectionTitle}>Delivery log</h3>
        <span className={p.spacer} />
        <Select
          label="Webhook"
          value={which}
          options={options}
          onChange={(next) => {
            setWhich(next);
            setPage(1);
          }}
        />
        <Button variant="ghost" size="sm" onClick={log.reload}>
          Refresh
        </Button>
      </div>
      {log.data && log.data.data.deliveries.length === 0 ? (
        <p className={p.muted}>No deliveries yet.</p>
      ) : (
        <div className={pn.tableWrap}>
          <table className={pn.table} aria-label="Delivery log">
            <thead>
              <tr>
                {['Time', 'Webhook', 'Event', 'Status', 'Status code', 'Duration', 'Attempts', 'Actions'].map((h) => (
                  <th key={h} className={pn.th} scope="col">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {log.data?.data.deliveries.map((d) => (
                <tr key={d._id}>
                  <td className={pn.td}>{new Date(d.time).toLocaleString()}</td>
                  <td className={pn.td}>{labelOf(d)}</td>
                  <td className={pn.td}>{d.event}</td>
                  <td className={pn.td}>
                    <Badge tone={STATUS_TONE[d.status]}>{STATUS_LABEL[d.status]}</Badge>
                  </td>
                  <td className={`${pn.td} ${pn.num}`}>{d.status_code ?? '—'}</td>
                  <td className={`${pn.td} ${pn.num}`}>{d.duration_ms === null ? '—' : `${d.duration_ms} ms`}</td>
                  <td className={`${pn.td} ${pn.num}`}>{d.attempts}</td>
                  <td className={pn.td}>
                    <div className={p.row}>
                      <Button variant="ghost" size="sm" aria-label={`View delivery ${d._id}`} onClick={() => void view(d)}>
                        View
                      </Button>
                      <Button
                        variant="secondary"
                        size="sm"
                        aria-label={`Resend delivery ${d._id}`}
                        onClick={() => void resend(d)}
                      >
                        Resend
                      </Button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pages > 1 ? (
        <nav className={p.row} aria-label="Delivery log pages">
          <Button variant="secondary" size="sm" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </Button>
          <span className={p.muted}>
            Page {page} of {pages}
          </span>
          <Button variant="secondary" size="sm" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next
          </Button>
        </nav>
      ) : null}
      <Dialog open={open !== null} onClose={() => setOpen(null)} title="Delivery" size="lg">
        {open ? (
          <div className={p.section}>
            <p className={p.muted}>
              {open.event} to {open.url}: {STATUS_LABEL[open.status]}, {open.attempts} attempt(s)
              {open.error ? `, ${open.error}` : ''}
            </p>
            <section aria-label="Request body">
              <h4>Request body</h4>
              <pre style={{ whiteSpace: 'pre-wrap', maxHeight: '16rem', overflow: 'auto' }}>{open.request_body ?? '—'}</pre>
            </section>
            <section aria-label="Response body">
              <h4>Response body</h4>
              <pre style={{ whiteSpace: 'pre-wrap', maxHeight: '16rem', overflow: 'auto' }}>{open.response_body ?? '—'}</pre>
            </section>
          </div>
        ) : null}
      </Dialog>
    </div>
  );
}
