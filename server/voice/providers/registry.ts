/**
 * The provider registry: every provider the call engine can run, one descriptor each, in one list.
 *
 * A descriptor (`defineProvider` in descriptor.ts, one folder per provider: deepgram/, openai/, anthropic/, elevenlabs/,
 * cartesia/) says what the provider serves (stt / llm / tts / realtime), where its API is and the
 * environment variable that moves it, the credential fields a company enters, the editor models it runs,
 * and the factory of its adapters. The catalogue half (name, label, kinds, credential fields) is pure data
 * shared with the browser (src/api/contract/provider.ts `PROVIDERS`); this file adds the server half keyed
 * by those names. Everything else derives from the registry: the engine's choice of providers
 * (server/voice/engine/pipeline.ts), which keys a call needs, the environment's URL variables
 * (server/platform/env.ts takes `urlVariables()` at composition, server/main.ts) and the configured API
 * bases (`urlsOf`). Adding a provider is one folder and one line of `BUILT_IN` (docs/call-providers.md).
 *
 * A registry is built per app (server/main.ts, tests): `register` adds or replaces a descriptor at run time,
 * so a test can run a call through a provider of its own without editing any other file.
 */
import { isProviderName, type ProviderName } from '@contract/provider.js';
import { anthropic } from './anthropic/index.js';
import { cartesia } from './cartesia/index.js';
import { deepgram } from './deepgram/index.js';
import type { ProviderAdapters, ProviderDescriptor, ProviderModel, VoiceKind } from './descriptor.js';
import { elevenlabs } from './elevenlabs/index.js';
import { openai } from './openai/index.js';
import type { LlmProvider, ProviderId, RealtimeProvider, SttProvider, TtsProvider } from './types.js';

export type { ProviderAdapters, ProviderDescriptor, ProviderModel, VoiceKind } from './descriptor.js';
export { defineProvider } from './descriptor.js';

/** The providers this server runs, one line each. */
const BUILT_IN = [deepgram, openai, anthropic, elevenlabs, cartesia] as const;

/**
 * Catalogue providers the call engine does not run, and where they are used instead: a company may store
 * their keys on the Providers page all the same.
 */
export const NOT_RUN_HERE = {
  twilio: 'a phone carrier (server/carriers/twilio)',
  plivo: 'a phone carrier (server/carriers/plivo)',
  calcom: 'a tool provider (server/voice/tools/calcom)',
  calendly: 'a tool provider (server/voice/tools/calendly)',
  perplexity: 'a tool provider (server/voice/tools/perplexity)',
  whatsapp: 'a tool provider: send_whatsapp (server/voice/tools/whatsapp)',
  smallest: 'a voice provider: no adapter yet',
} as const satisfies Partial<Record<ProviderName, string>>;

// Every catalogue name has a server descriptor or is listed above (a new name in the contract fails here).
type Unplaced = Exclude<ProviderName, (typeof BUILT_IN)[number]['id'] | keyof typeof NOT_RUN_HERE>;
const everyNamePlaced: [Unplaced] extends [never] ? true : { unplaced: Unplaced } = true;
void everyNamePlaced;

export class ProviderRegistry {
  private readonly entries = new Map<ProviderId, { descriptor: ProviderDescriptor; adapters?: ProviderAdapters }>();

  constructor(descriptors: readonly ProviderDescriptor[] = []) {
    for (const d of descriptors) this.register(d);
  }

  /**
   * Adds a provider, or replaces the one with its id. A provider outside the catalogue cannot be connected
   * on the Providers page, so it must take no key.
   */
  register(descriptor: ProviderDescriptor): this {
    if (!isProviderName(descriptor.id) && descriptor.fields.length > 0)
      throw new Error(`${descriptor.id} is not in the provider catalogue: it cannot take credential fields`);
    this.entries.set(descriptor.id, { descriptor });
    return this;
  }

  /** The same providers with some adapters replaced (in-process providers for the engine's tests, benches). */
  withAdapters(adapters: Partial<Record<ProviderId, ProviderAdapters>>): ProviderRegistry {
    const copy = new ProviderRegistry([...this.list()]);
    for (const [id, a] of Object.entries(adapters)) {
      const entry = copy.entries.get(id);
      if (!entry) throw new Error(`No provider ${id} to replace adapters of`);
      entry.adapters = { ...copy.adaptersOf(id), ...a };
    }
    return copy;
  }

  list(): ProviderDescriptor[] {
    return [...this.entries.values()].map((e) => e.descriptor);
  }

  descriptor(id: ProviderId): ProviderDescriptor | undefined {
    return this.entries.get(id)?.descriptor;
  }

  /** Whether `id` is registered and has an adapter of `kind`. */
  serves(id: ProviderId, kind: VoiceKind): boolean {
    return this.entries.has(id) && this.adaptersOf(id)[kind] !== undefined;
  }

  stt = (id: ProviderId): SttProvider => this.adapter(id, 'stt');
  llm = (id: ProviderId): LlmProvider => this.adapter(id, 'llm');
  tts = (id: ProviderId): TtsProvider => this.adapter(id, 'tts');
  realtime = (id: ProviderId): RealtimeProvider => this.adapter(id, 'realtime');

  /** The first registered provider serving `kind` (the default of an agent that names none it can use). */
  defaultOf(kind: VoiceKind): ProviderId {
    const found = this.list().find((d) => this.serves(d.id, kind));
    if (!found) throw new Error(`No ${kind} provider is registered`);
    return found.id;
  }

  /** `wanted` when it serves `kind`, else the default provider of the kind. */
  pick(kind: VoiceKind, wanted: string | undefined): ProviderId {
    return wanted !== undefined && this.serves(wanted, kind) ? wanted : this.defaultOf(kind);
  }

  /** Which provider runs an editor model, and as what; the last registered provider claiming it wins. */
  modelRoute(editorModel: string): (ProviderModel & { provider: ProviderId }) | undefined {
    let route: (ProviderModel & { provider: ProviderId }) | undefined;
    for (const d of this.list())
      for (const m of d.models ?? []) if (m.id === editorModel && this.serves(d.id, m.kind)) route = { ...m, provider: d.id };
    return route;
  }

  /** The environment variables that move the providers' APIs, by provider. */
  urlVariables(): { id: ProviderId; env: string }[] {
    return this.list().map((d) => ({ id: d.id, env: d.url.env }));
  }

  /** Each provider's API base: `configured[env var]` when set (normalised by the env parser), else its default. */
  urlsOf(configured: Readonly<Record<string, string | undefined>> = {}): Record<string, string> {
    return Object.fromEntries(this.list().map((d) => [d.id, configured[d.url.env] ?? d.url.default]));
  }

  private adaptersOf(id: ProviderId): ProviderAdapters {
    const entry = this.entries.get(id);
    if (!entry) return {};
    entry.adapters ??= entry.descriptor.create();
    return entry.adapters;
  }

  private adapter<K extends VoiceKind>(id: ProviderId, kind: K): NonNullable<ProviderAdapters[K]> {
    const a = this.adaptersOf(id)[kind];
    if (!a) throw new Error(`Provider ${id} has no ${kind} adapter`);
    return a as NonNullable<ProviderAdapters[K]>;
  }
}

/** A registry of the built-in providers (each app builds its own: server/main.ts, tests). */
export function createProviderRegistry(): ProviderRegistry {
  return new ProviderRegistry(BUILT_IN);
}

/** The built-in providers' default API bases, by provider (a config without environment: tests, benches). */
export const defaultProviderUrls = (): Record<string, string> => createProviderRegistry().urlsOf();
