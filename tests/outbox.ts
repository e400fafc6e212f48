import fs from 'node:fs';
import path from 'node:path';

/** The emails the outbox mailer (no SMTP_URL) wrote to DATA_DIR/outbox, oldest first, quoted-printable decoded. */
export function outboxMails(dataDir: string): string[] {
  const dir = path.join(dataDir, 'outbox');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .sort()
    .map((f) =>
      fs
        .readFileSync(path.join(dir, f), 'utf8')
        .replace(/=\r?\n/g, '')
        .replace(/=3D/g, '='),
    );
}
