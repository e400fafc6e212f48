import * as v from 'valibot';

/**
 * Search schema of a route that takes no search params: anything in the URL is dropped instead of
 * crashing the route. Routes with params declare their own `v.fallback(...)` schemas the same way.
 */
export const noSearch = v.fallback(v.object({}), {});

/** An optional search param that falls back to undefined when hand-edited into nonsense. */
export const optionalParam = <S extends v.GenericSchema>(schema: S) => v.fallback(v.optional(schema), undefined);
