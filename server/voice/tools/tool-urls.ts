/**
 * Where the tool providers' APIs are: each one's default base and the environment variable that moves it
 * (tests point them at tests/fakes/calcom.ts, calendly.ts, perplexity.ts). server/main.ts gives parseEnv
 * these variables with the voice providers' and adds `toolUrlsOf(env.apiBases)` to AppConfig.providerUrls,
 * where the company's provider access (server/modules/providers/call-keys.ts) takes its base from.
 */
export const TOOL_PROVIDER_URLS = {
  calcom: { default: 'https://api.cal.com', env: 'CAL_API_URL' },
  calendly: { default: 'https://api.calendly.com', env: 'CALENDLY_API_URL' },
  perplexity: { default: 'https://api.perplexity.ai', env: 'PERPLEXITY_API_URL' },
  whatsapp: { default: 'https://graph.facebook.com', env: 'WHATSAPP_API_URL' },
} as const;

/** The environment variables holding a tool provider's API base. */
export const toolUrlVariables = (): string[] => Object.values(TOOL_PROVIDER_URLS).map((u) => u.env);

/** Each tool provider's API base: the configured one (normalised by the env parser) or its default. */
export function toolUrlsOf(configured: Readonly<Record<string, string | undefined>> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(TOOL_PROVIDER_URLS).map(([id, u]) => [id, configured[u.env] ?? u.default]));
}
