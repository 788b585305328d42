// Sends the sign-in mail over SMTP (nodemailer, SMTP_URL). Without SMTP configured, as in
// development, the link is written to the log instead, so sign-in still works on a bare machine.
// nodemailer is loaded with the first mail, not at start-up.
import type { FastifyBaseLogger } from 'fastify';
import type { Transporter } from 'nodemailer';
import type { Config } from '../config.js';

export interface Mailer {
  sendSignInLink(to: string, link: string): Promise<void>;
  close(): void;
}

export function createMailer(config: Config, log: FastifyBaseLogger): Mailer {
  const { smtpUrl, mailFrom } = config.humans;
  if (!smtpUrl) {
    // Production refuses to start this way (config.ts): a live link in a log is a key anyone reading it can use.
    if (config.env === 'production' && config.humans.emailSignIn)
      throw new Error('createMailer: no SMTP_URL in production');
    return {
      async sendSignInLink(to, link) {
        log.info(
          { to, sign_in_link: link },
          'no SMTP configured: here is the sign-in link that would have been mailed',
        );
      },
      close() {},
    };
  }
  let transport: Promise<Transporter> | undefined;
  const connect = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport(smtpUrl),
    ));
  return {
    async sendSignInLink(to, link) {
      await (
        await connect()
      ).sendMail({
        from: mailFrom,
        to,
        subject: 'Your bot-platform sign-in link',
        text: `Sign in to bot-platform by opening this link within 15 minutes:\n\n${link}\n\nIt works once. If you did not ask for it, ignore this mail.\n`,
      });
    },
    close() {
      void transport?.then((opened) => opened.close());
    },
  };
}
