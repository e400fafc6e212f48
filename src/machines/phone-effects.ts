/**
 * Effects the Phone Numbers screen's machines share (assignAgent, phoneNumberUpdate, phoneNumberDelete,
 * phoneRequest): toasts (the same `notify` as the Agents page's machines), and reloading every phone
 * list after the server said the row on screen is out of date (a number deleted meanwhile). A
 * successful change needs no reload here: `phone.*` calls invalidate the phone lists themselves.
 * Tests swap them with `.provide({ actions: { notify, refreshList } })`.
 */
import { queryCache } from '../api/cache';
import { isApiError } from '../api/errors';
import { PHONE_CACHE_PREFIX } from '../api/phone';
import { type AgentToast, agentEffects } from './agent-effects';

export type PhoneToast = AgentToast;

export const phoneEffects = {
  notify: agentEffects.notify,
  refreshList: () => {
    queryCache.invalidate(PHONE_CACHE_PREFIX);
  },
};

/** 404: the number was deleted meanwhile (the row on screen is out of date). */
export const isGone = (_: unknown, params: { error: unknown }) => isApiError(params.error) && params.error.status === 404;
