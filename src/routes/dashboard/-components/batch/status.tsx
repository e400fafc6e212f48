import { BATCH_FAILED_LABEL, BATCH_STATUS_LABELS, type BatchStatus } from '../../../../api/contract/batch';
import { Badge, type BadgeTone } from '../../../../ui/badge/badge';

const TONES: Record<BatchStatus, BadgeTone> = {
  draft: 'grey',
  scheduled: 'blue',
  sending: 'yellow',
  paused: 'grey',
  completed: 'green',
  canceled: 'red',
};

/** Draft / Scheduled / Sending / Paused / Completed / Canceled; a completed batch whose every call failed: red 'Failed'. */
export function BatchStatusBadge({ status, allFailed = false }: { status: BatchStatus; allFailed?: boolean }) {
  if (status === 'completed' && allFailed) return <Badge tone="red">{BATCH_FAILED_LABEL}</Badge>;
  return <Badge tone={TONES[status]}>{BATCH_STATUS_LABELS[status]}</Badge>;
}
