import { BATCH_STATUS_LABELS, type BatchStatus } from '../../../../api/contract/batch';
import { Badge, type BadgeTone } from '../../../../ui/badge/badge';

const TONES: Record<BatchStatus, BadgeTone> = {
  draft: 'grey',
  scheduled: 'blue',
  sending: 'yellow',
  paused: 'grey',
  completed: 'green',
  canceled: 'red',
};

/** Draft / Scheduled / Sending / Paused / Completed / Canceled. */
export function BatchStatusBadge({ status }: { status: BatchStatus }) {
  return <Badge tone={TONES[status]}>{BATCH_STATUS_LABELS[status]}</Badge>;
}
