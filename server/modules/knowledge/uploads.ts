import fs from 'node:fs';
import { safeName, type UploadKind } from '../../platform/uploads/kinds.js';
import { kbDir, knowledgeBaseExists } from './kb.repo.js';

/** A knowledge base's files: its directory, part of the data once its `knowledge_bases` row is inserted. */
export const knowledgeBaseUploads: UploadKind = {
  isLive: (db, upload) => knowledgeBaseExists(db, upload.id),
  async remove(_db, dataDir, upload) {
    if (upload.companyId && safeName(upload.id) && safeName(upload.companyId))
      await fs.promises.rm(kbDir(dataDir, upload.companyId, upload.id), { recursive: true, force: true });
  },
};
