import { BATCH_STATUS_LABELS, type BatchStatus } from '../../../../api/contract/batch';
import { cx } from '../../../../ui/cx';
import * as p from '../panels.css';

const TONES: Record<BatchStatus, keyof typeof p.tone> = {
  draft: 'grey',
  scheduled: 'blue',
  sending: 'yellow',
  completed: 'green',
  canceled: 'red',
};

/** Draft / Scheduled / Sending / Completed / Canceled. */
export function BatchStatusBadge({ status }: { status: BatchStatus }) {
  return <span className={cx(p.badge, p.tone[TONES[status]])}>{BATCH_STATUS_LABELS[status]}</span>;
}
