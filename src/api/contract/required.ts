import * as v from 'valibot';

/**
 * `v.object` whose missing keys report a readable message: the key's entry in `missing`, else
 * '<key> is required' (valibot alone answers 'Invalid key: Expected "<key>" but received undefined').
 */
export function objectRequiring<const E extends v.ObjectEntries>(entries: E, missing: Partial<Record<keyof E, string>> = {}) {
  return v.object(entries, (issue) => {
    const key = issue.path?.[0]?.key;
    if (typeof key !== 'string') return 'Expected a JSON object';
    return missing[key as keyof E] ?? `${key} is required`;
  });
}
