import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Mailer, MailMessage } from '../lib/deps.js';
import type { Logger } from '../lib/logger.js';

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
 * Without SMTP, each email becomes an .eml file in DATA_DIR/outbox and its links are logged,
 * so a local user can still complete a password reset.
 */
export function outboxMailer(dataDir: string, logger: Logger): Mailer {
  const dir = path.join(dataDir, 'outbox');
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(m: MailMessage) {
      fs.mkdirSync(dir, { recursive: true });
      const info = await transport.sendMail({ from: FROM, to: m.to, subject: m.subject, text: m.text, html: m.html });
      const file = path.join(dir, `${Date.now()}-${randomBytes(4).toString('hex')}.eml`);
      fs.writeFileSync(file, info.message as Buffer, { mode: 0o600 });
      const links = m.text.match(/https?:\/\/\S+/g) ?? [];
      // The outbox exists for local use only; the link is what lets a local user finish the flow.
      logger.info('email written to outbox', { file, subject: m.subject, links: links.join(' ') });
    },
  };
}
