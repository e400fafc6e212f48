/**
 * What the delivery log's 'Resend' tells (WebhooksSection): the server's sentence when the delivery was
 * queued again; when Resend was refused for going over one of its limits (429, docs/webhooks.md), the
 * server's sentence saying which limit and how long to wait.
 */
import { isApiError } from '../../../../api/errors';
import type { ToastMessage } from '../../../../api/toast';

export async function resendToast(resend: () => Promise<{ msg: string }>): Promise<ToastMessage> {
  try {
    return { title: (await resend()).msg };
  } catch (e) {
    return {
      title: isApiError(e) && e.status === 429 ? 'Not resent' : 'Error',
      description: e instanceof Error ? e.message : 'Something went wrong',
      variant: 'destructive',
    };
  }
}
