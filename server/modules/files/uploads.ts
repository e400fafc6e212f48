import fs from 'node:fs';
import path from 'node:path';
import { safeName, type UploadKind } from '../../platform/uploads/kinds.js';
import { uploadsDir } from '../../platform/uploads/uploads.js';
import { fileExists } from './files.repo.js';

/** A photo (sign-up, account): its file under DATA_DIR/uploads, part of the data once a `files` row names it. */
export const photoUploads: UploadKind = {
  isLive: (db, upload) => fileExists(db, upload.id),
  async remove(_db, dataDir, upload) {
    if (safeName(upload.id)) await fs.promises.rm(path.join(uploadsDir(dataDir), upload.id), { force: true });
  },
};
