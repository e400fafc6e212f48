import type { ProviderField } from '../../src/api/contract/provider.js';

/**
 * A value a provider field accepts: a URL field (OpenAI's Base URL) takes a public https URL (an IP literal:
 * no DNS needed) carrying `plain` in its path; every other field takes `plain` as it is.
 */
export const fieldValue = (f: Pick<ProviderField, 'url'>, plain: string) => (f.url ? `https://8.8.8.8/${plain}` : plain);
