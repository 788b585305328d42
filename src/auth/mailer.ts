// Sends the sign-in mail over SMTP (nodemailer, SMTP_URL). Without SMTP configured, as in
// development, the link is written to the log instead, so sign-in still works on a bare machine.
import type { FastifyBaseLogger } from 'fastify';
import nodemailer from 'nodemailer';
import type { Config } from '../config.js';

export interface Mailer {
  sendSignInLink(to: string, link: string): Promise<void>;
  close(): void;
}

export function createMailer(config: Config, log: FastifyBaseLogger): Mailer {
  const { smtpUrl, mailFrom } = config.humans;
  if (!smtpUrl) {
    return {
      async sendSignInLink(to, link) {
        log.info({ to, sign_in_link: link }, 'no SMTP configured: here is the sign-in link that would have been mailed');
      },
      close() {},
    };
  }
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    async sendSignInLink(to, link) {
      await transport.sendMail({
        from: mailFrom,
        to,
        subject: 'Your bot-platform sign-in link',
        text: `Sign in to bot-platform by opening this link within 15 minutes:\n\n${link}\n\nIt works once. If you did not ask for it, ignore this mail.\n`,
      });
    },
    close() {
      transport.close();
    },
  };
}
