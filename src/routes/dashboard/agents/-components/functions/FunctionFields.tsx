/**
 * The inputs of the function dialog for each function type: headers (secret values), parameters (a list
 * of typed properties or raw JSON), an MCP server's tools ('Load tools'), the calendar and message fields,
 * and the line that points to the Providers page when the type's provider card is not connected.
 */
import { Link } from '@tanstack/react-router';
import { useEffect, useMemo, useState } from 'react';
import {
  FUNCTION_PROVIDER,
  type FunctionType,
  HTTP_METHODS,
  type HttpMethod,
  SECRET_MASK,
} from '../../../../../api/contract/agent/functions';
import { type ProviderStatusResponse, providerLabel } from '../../../../../api/contract/provider';
import { functionsClient, loadToolsErrorText, type McpTool } from '../../../../../api/functions';
import { PROVIDER_STATUS_KEY, providers } from '../../../../../api/providers';
import { Button } from '../../../../../ui/button/button';
import { Checkbox } from '../../../../../ui/checkbox/checkbox';
import { PlusIcon } from '../../../../../ui/icons';
import { Select } from '../../../../../ui/select/select';
import { Spinner } from '../../../../../ui/spinner/spinner';
import { Switch } from '../../../../../ui/switch/switch';
import { TextField } from '../../../../../ui/text-field/text-field';
import { Textarea } from '../../../../../ui/textarea/textarea';
import { useQuery } from '../../../../-lib/useQuery';
import * as s from '../editor.css';
import { TrashIcon } from '../editor-context';
import {
  type DraftErrors,
  type FunctionDraft,
  PARAMETER_TYPES,
  type ParameterRow,
  type ParameterType,
  runs,
  switchParamsMode,
  timeZones,
} from './function-draft';
import * as f from './functions.css';

export interface FieldsProps {
  draft: FunctionDraft;
  errors: DraftErrors;
  /** changes some fields of the draft (their errors are cleared) */
  change: (patch: Partial<FunctionDraft>, errorKeys?: string[]) => void;
  /** the saved agent, for 'Load tools' to read masked header values */
  agentId: string | undefined;
}

const METHOD_OPTIONS = HTTP_METHODS.map((m) => ({ value: m, label: m }));
const MODE_OPTIONS = [
  { value: 'cold' as const, label: 'Cold' },
  { value: 'warm' as const, label: 'Warm' },
];
const PARAMETER_TYPE_OPTIONS = PARAMETER_TYPES.map((t) => ({ value: t, label: t }));

/** The inputs every function has, then the ones of its type. */
export function FunctionFields(props: FieldsProps) {
  const { draft: d, errors, change } = props;
  return (
    <>
      <ProviderNote type={d.type} />
      <TextField
        label="Name"
        value={d.name}
        onChange={(e) => change({ name: e.target.value }, ['name'])}
        error={errors.name}
        hint="The name the LLM calls: letters, digits, _ and -."
        maxLength={64}
        autoComplete="off"
      />
      <Textarea
        label="Description (optional)"
        rows={3}
        value={d.description}
        placeholder="When the agent should use it, in a sentence."
        onChange={(e) => change({ description: e.target.value }, ['description'])}
        error={errors.description}
      />
      <TypeFields {...props} />
      {runs(d.type) ? (
        <div className={f.pair}>
          <div className={s.grow}>
            <TextField
              label="Speak during (optional)"
              value={d.speak_during}
              placeholder="One moment while I check that."
              hint="Said when the function has not answered within half a second."
              onChange={(e) => change({ speak_during: e.target.value }, ['speak_during'])}
              error={errors.speak_during}
            />
          </div>
          <div className={s.grow}>
            <TextField
              label="Timeout (ms)"
              type="number"
              inputMode="numeric"
              min={1000}
              max={30000}
              step={500}
              value={d.timeout_ms}
              hint="1,000 to 30,000."
              onChange={(e) => change({ timeout_ms: e.target.value }, ['timeout_ms'])}
              error={errors.timeout_ms}
            />
          </div>
        </div>
      ) : null}
    </>
  );
}

function TypeFields(props: FieldsProps) {
  const { draft: d, errors, change } = props;
  switch (d.type) {
    case 'transfer':
      return (
        <>
          <TextField
            label="Transfer to (phone number)"
            type="tel"
            placeholder="+14155550123"
            hint="On phone calls the caller is transferred to this number."
            value={d.number}
            onChange={(e) => change({ number: e.target.value }, ['number'])}
            error={errors.number}
          />
          <Select
            label="Mode"
            value={d.mode}
            onChange={(mode) => change({ mode })}
            options={MODE_OPTIONS}
            hint="Warm: the agent tells the person answering what the call is about before connecting the caller."
          />
        </>
      );
    case 'custom':
      return (
        <>
          <UrlField {...props} placeholder="https://api.example.com/slots" />
          <Select<HttpMethod>
            label="Method"
            value={d.method}
            onChange={(method) => change({ method })}
            options={METHOD_OPTIONS}
          />
          <HeadersEditor {...props} />
          <ParametersEditor {...props} />
        </>
      );
    case 'mcp':
      return (
        <>
          <UrlField {...props} placeholder="https://mcp.example.com/mcp" hint="A Streamable HTTP MCP server." />
          <HeadersEditor {...props} />
          <McpTools {...props} />
        </>
      );
    case 'check_availability_cal':
    case 'book_appointment_cal':
      return (
        <>
          <TextField
            label="Event type ID"
            inputMode="numeric"
            placeholder="123456"
            value={d.event_type_id}
            onChange={(e) => change({ event_type_id: e.target.value }, ['event_type_id'])}
            error={errors.event_type_id}
          />
          <TimeZoneField {...props} />
        </>
      );
    case 'check_availability_calendly':
    case 'book_appointment_calendly':
      return (
        <TextField
          label="Event type URI"
          type="url"
          placeholder="https://api.calendly.com/event_types/AAAAAAAAAAAAAAAA"
          value={d.event_type}
          onChange={(e) => change({ event_type: e.target.value }, ['event_type'])}
          error={errors.event_type}
        />
      );
    case 'send_sms':
      return (
        <Textarea
          label="Template (optional)"
          rows={3}
          placeholder="Hi {{name}}, your appointment is confirmed."
          hint="Fixed text with {{variables}}. Empty: the agent writes the text."
          value={d.template}
          onChange={(e) => change({ template: e.target.value }, ['template'])}
          error={errors.template}
        />
      );
    case 'send_whatsapp':
      return (
        <div className={f.pair}>
          <div className={s.grow}>
            <TextField
              label="Template name"
              placeholder="appointment_confirmation"
              value={d.template_name}
              onChange={(e) => change({ template_name: e.target.value }, ['template_name'])}
              error={errors.template_name}
            />
          </div>
          <div className={s.grow}>
            <TextField
              label="Language"
              placeholder="en_US"
              value={d.language}
              onChange={(e) => change({ language: e.target.value }, ['language'])}
              error={errors.language}
            />
          </div>
        </div>
      );
    default:
      return null;
  }
}

function UrlField({ draft, errors, change, placeholder, hint }: FieldsProps & { placeholder: string; hint?: string }) {
  return (
    <TextField
      label="URL"
      type="url"
      inputMode="url"
      placeholder={placeholder}
      hint={hint}
      value={draft.url}
      onChange={(e) => change({ url: e.target.value }, ['url'])}
      error={errors.url}
    />
  );
}

/** The IANA time zone: a text input with the browser's zones as suggestions (a combobox). */
function TimeZoneField({ draft, errors, change }: FieldsProps) {
  const zones = useMemo(timeZones, []);
  const listId = 'function-time-zones';
  return (
    <>
      <TextField
        label="Time zone"
        list={listId}
        placeholder="America/New_York"
        autoComplete="off"
        value={draft.timezone}
        onChange={(e) => change({ timezone: e.target.value }, ['timezone'])}
        error={errors.timezone}
      />
      <datalist id={listId}>
        {zones.map((z) => (
          <option key={z} value={z} />
        ))}
      </datalist>
    </>
  );
}

/** Header rows (name, secret value). A saved value comes back as the mask; left as is, the server keeps it. */
function HeadersEditor({ draft, errors, change }: FieldsProps) {
  const rows = draft.headers;
  const set = (i: number, patch: Partial<{ name: string; value: string }>, key: string) =>
    change({ headers: rows.map((h, j) => (j === i ? { ...h, ...patch } : h)) }, [`headers.${i}.${key}`]);
  return (
    <fieldset className={f.group}>
      <legend className={f.groupTitle}>Headers</legend>
      {rows.length === 0 ? <p className={s.muted}>No headers. Values are stored encrypted and shown masked.</p> : null}
      {rows.map((h, i) => (
        <div key={i} className={f.headerRow}>
          <TextField
            label={`Header name ${i + 1}`}
            placeholder="Authorization"
            autoComplete="off"
            value={h.name}
            onChange={(e) => set(i, { name: e.target.value }, 'name')}
            error={errors[`headers.${i}.name`]}
          />
          <TextField
            label={`Header value ${i + 1}`}
            type="password"
            autoComplete="new-password"
            placeholder="Bearer …"
            value={h.value}
            hint={h.value === SECRET_MASK ? 'Saved. Type a new value to replace it.' : undefined}
            // a masked value is replaced as a whole, never edited around the mask
            onFocus={(e) => h.value === SECRET_MASK && e.target.select()}
            onChange={(e) => set(i, { value: e.target.value }, 'value')}
            error={errors[`headers.${i}.value`]}
          />
          <Button
            variant="ghost"
            size="iconSm"
            aria-label={`Remove header ${i + 1}`}
            onClick={() => change({ headers: rows.filter((_, j) => j !== i) })}
          >
            <TrashIcon />
          </Button>
        </div>
      ))}
      <div>
        <Button size="sm" variant="secondary" onClick={() => change({ headers: [...rows, { name: '', value: '' }] })}>
          <PlusIcon />
          Add header
        </Button>
      </div>
    </fieldset>
  );
}

/** The function's parameters: a list of typed properties, or the JSON Schema itself. */
function ParametersEditor({ draft, errors, change }: FieldsProps) {
  const [modeError, setModeError] = useState<string>();
  const rows = draft.params;
  const set = (i: number, patch: Partial<ParameterRow>) =>
    change({ params: rows.map((r, j) => (j === i ? { ...r, ...patch } : r)) }, [`params.${i}.name`, 'parameters']);
  return (
    <fieldset className={f.group}>
      <legend className={f.groupTitle}>Parameters</legend>
      <div className={f.groupHead}>
        <Switch
          label="Edit as JSON"
          checked={draft.paramsMode === 'json'}
          onCheckedChange={(json) => {
            const next = switchParamsMode(draft, json ? 'json' : 'list');
            if ('error' in next) setModeError(next.error);
            else {
              setModeError(undefined);
              change(next.draft, ['parameters']);
            }
          }}
        />
      </div>
      {modeError ? (
        <p className={s.error} role="alert">
          {modeError}
        </p>
      ) : null}
      {draft.paramsMode === 'json' ? (
        <Textarea
          label="Parameters (JSON Schema)"
          className={f.json}
          spellCheck={false}
          value={draft.paramsJson}
          onChange={(e) => {
            setModeError(undefined);
            change({ paramsJson: e.target.value }, ['parameters']);
          }}
          error={errors.parameters}
          hint='A JSON Schema object: {"type": "object", "properties": {...}, "required": [...]}.'
        />
      ) : (
        <>
          {rows.length === 0 ? <p className={s.muted}>No parameters: the function is called without arguments.</p> : null}
          {rows.map((r, i) => (
            <div key={i} className={f.paramRow}>
              <TextField
                label={`Parameter name ${i + 1}`}
                placeholder="date"
                autoComplete="off"
                value={r.name}
                onChange={(e) => set(i, { name: e.target.value })}
                error={errors[`params.${i}.name`]}
              />
              <Select<ParameterType>
                label={`Parameter type ${i + 1}`}
                value={r.type}
                onChange={(type) => set(i, { type })}
                options={PARAMETER_TYPE_OPTIONS}
              />
              <TextField
                label={`Parameter description ${i + 1}`}
                placeholder="The day the caller asks for, YYYY-MM-DD"
                value={r.description}
                onChange={(e) => set(i, { description: e.target.value })}
              />
              <Checkbox
                label="Required"
                aria-label={`Parameter ${i + 1} required`}
                checked={r.required}
                onCheckedChange={(required) => set(i, { required })}
              />
              <Button
                variant="ghost"
                size="iconSm"
                aria-label={`Remove parameter ${i + 1}`}
                onClick={() => change({ params: rows.filter((_, j) => j !== i) }, ['parameters'])}
              >
                <TrashIcon />
              </Button>
            </div>
          ))}
          {errors.parameters ? (
            <p className={s.error} role="alert">
              {errors.parameters}
            </p>
          ) : null}
          <div>
            <Button
              size="sm"
              variant="secondary"
              onClick={() => change({ params: [...rows, { name: '', type: 'string', description: '', required: false }] })}
            >
              <PlusIcon />
              Add parameter
            </Button>
          </div>
        </>
      )}
    </fieldset>
  );
}

/** 'Load tools': asks the server to list the MCP server's tools; checkboxes choose the allowed ones. */
function McpTools({ draft, errors, change, agentId }: FieldsProps) {
  const [state, setState] = useState<{ loading: boolean; tools: McpTool[] | null; error?: string }>({
    loading: false,
    tools: null,
  });
  const [allowedText, setAllowedText] = useState(draft.allowed_tools.join(', '));
  const allowedKey = draft.allowed_tools.join(', ');
  // the checkboxes changed the list: show it in the text input
  useEffect(() => {
    setAllowedText((text) => (splitNames(text).join(', ') === allowedKey ? text : allowedKey));
  }, [allowedKey]);

  const load = async () => {
    setState({ loading: true, tools: state.tools });
    try {
      const res = await functionsClient.mcpTools({
        url: draft.url.trim(),
        headers: draft.headers.filter((h) => h.name.trim()).map((h) => ({ name: h.name.trim(), value: h.value })),
        agent_id: agentId,
        function_id: draft.id ?? undefined,
      });
      setState({ loading: false, tools: res.tools });
    } catch (error) {
      setState({ loading: false, tools: null, error: loadToolsErrorText(error) });
    }
  };
  const allowed = new Set(draft.allowed_tools);
  const all = state.tools?.map((t) => t.name) ?? [];
  // no choice made = every tool the server offers
  const isAllowed = (name: string) => allowed.size === 0 || allowed.has(name);
  const toggle = (name: string, on: boolean) => {
    const next = all.filter((n) => (n === name ? on : isAllowed(n)));
    change({ allowed_tools: next.length === all.length ? [] : next }, ['allowed_tools']);
  };
  return (
    <fieldset className={f.group}>
      <legend className={f.groupTitle}>Tools</legend>
      <div className={f.groupHead}>
        <Button size="sm" variant="secondary" loading={state.loading} disabled={!draft.url.trim()} onClick={() => void load()}>
          Load tools
        </Button>
      </div>
      {state.loading ? (
        <p className={f.status} role="status">
          <Spinner size="sm" decorative /> Loading tools…
        </p>
      ) : null}
      {state.error ? (
        <p className={s.error} role="alert">
          {state.error}
        </p>
      ) : null}
      {state.tools ? (
        state.tools.length === 0 ? (
          <p className={s.muted}>The server offers no tools.</p>
        ) : (
          <ul className={f.tools} aria-label="Server tools">
            {state.tools.map((t) => (
              <li key={t.name}>
                <Checkbox
                  label={t.name}
                  description={t.description || undefined}
                  checked={isAllowed(t.name)}
                  onCheckedChange={(on) => toggle(t.name, on)}
                />
              </li>
            ))}
          </ul>
        )
      ) : null}
      <TextField
        label="Allowed tools"
        placeholder="search_orders, get_order"
        hint="Tool names, separated by commas. Empty: every tool the server offers."
        value={allowedText}
        onChange={(e) => {
          setAllowedText(e.target.value);
          change({ allowed_tools: splitNames(e.target.value) }, ['allowed_tools']);
        }}
        error={errors.allowed_tools ?? Object.entries(errors).find(([k]) => k.startsWith('allowed_tools.'))?.[1]}
      />
    </fieldset>
  );
}

const splitNames = (text: string) => [
  ...new Set(
    text
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean),
  ),
];

/**
 * 'Uses your Cal.com key: Connect Cal.com on the Providers page' when the type needs a provider card that
 * is not connected (the Providers API's status list says which are).
 */
function ProviderNote({ type }: { type: FunctionType }) {
  const provider = FUNCTION_PROVIDER[type];
  if (!provider) return null;
  return <ProviderStatusNote provider={provider} />;
}

function ProviderStatusNote({ provider }: { provider: string }) {
  const status = useQuery<ProviderStatusResponse>(PROVIDER_STATUS_KEY, () => providers.status({ notify: false }));
  const connected = status.data?.data.find((p) => p.name === provider)?.connected;
  // unknown (still loading, or the status could not be read): say nothing rather than something wrong
  if (connected !== false) return null;
  const label = providerLabel(provider);
  return (
    <p className={f.note}>
      Uses your {label} key:{' '}
      <Link to="/dashboard/providers" className={f.noteLink}>
        Connect {label} on the Providers page
      </Link>
    </p>
  );
}
