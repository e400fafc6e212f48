import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Mailer, MailMessage } from './deps.js';
import type { Logger } from './log/logger.js';

const FROM = 'Parley <no-reply@parley.local>';

/** Sends through SMTP_URL with nodemailer. */
export function smtpMailer(url: string): Mailer {
  const transport = nodemailer.createTransport(url);
  return {
    async send(m: MailMessage) {
      await transport.sendMail({ from: FROM, to: m.to, subject: m.subject, text: m.text, html: m.html });
    },
  };
}

/**
 * Without SMTP, each email becomes an .eml file (mode 0600) in DATA_DIR/outbox, where a local user opens it
 * to finish a password reset. The log says only that a message was written and its id (the file's name):
 * never its recipient, subject, body or links, since a reset link in a log would let anyone who reads the
 * log take over the account.
 */
export function outboxMailer(dataDir: string, logger: Logger): Mailer {
  const dir = path.join(dataDir, 'outbox');
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(m: MailMessage) {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      const info = await transport.sendMail({ from: FROM, to: m.to, subject: m.subject, text: m.text, html: m.html });
      const id = `${Date.now()}-${randomBytes(4).toString('hex')}`;
      fs.writeFileSync(path.join(dir, `${id}.eml`), info.message as Buffer, { mode: 0o600 });
      logger.info('email written to outbox', { id });
    },
  };
}
