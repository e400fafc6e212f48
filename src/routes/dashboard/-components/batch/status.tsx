import { BATCH_STATUS_LABELS, type BatchStatus } from '../../../../api/contract/batch';
import { Badge, type BadgeTone } from '../../../../ui/badge/badge';

const TONES: Record<BatchStatus, BadgeTone> = {
  draft: 'grey',
  scheduled: 'blue',
  sending: 'yellow',
  completed: 'green',
  canceled: 'red',
};

/** Draft / Scheduled / Sending / Completed / Canceled. */
export function BatchStatusBadge({ status }: { status: BatchStatus }) {
  return <Badge tone={TONES[status]}>{BATCH_STATUS_LABELS[status]}</Badge>;
}
