/**
 * Effects the Phone Numbers screen's machines share (assignAgent, phoneNumberUpdate, phoneNumberDelete,
 * phoneRequest): `notify` (a toast, supplied by the route with `.provide()`, see ./notify.ts), and reloading
 * every phone list after the server said the row on screen is out of date (a number deleted meanwhile). A
 * successful change needs no reload here: `phone.*` calls invalidate the phone lists themselves.
 * Tests swap them with `.provide({ actions: { notify, refreshList } })`.
 */
import { queryCache } from '../api/cache';
import { isApiError } from '../api/errors';
import { PHONE_CACHE_PREFIX } from '../api/phone';
import { notify } from './notify';

export const phoneEffects = {
  notify,
  refreshList: () => {
    queryCache.invalidate(PHONE_CACHE_PREFIX);
  },
};

/** 404: the number was deleted meanwhile (the row on screen is out of date). */
export const isGone = (_: unknown, params: { error: unknown }) => isApiError(params.error) && params.error.status === 404;
