import type { UploadKind } from '../../platform/uploads/kinds.js';
import { deleteUploadRecipients, uploadInUse } from './batch-call.repo.js';

/** A batch's recipients list: its `batch_recipients` rows, part of the data once the batch calls it. */
export const recipientUploads: UploadKind = {
  isLive: (db, upload) => uploadInUse(db, upload.id),
  remove: (db, _dataDir, upload) => deleteUploadRecipients(db, upload.id),
};
