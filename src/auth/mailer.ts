// Sends the sign-in mail over SMTP (nodemailer, SMTP_URL). Without SMTP configured, as in
// development, the link is written to the log instead, so sign-in still works on a bare machine.
// nodemailer is loaded with the first mail, not at start-up.
import type { FastifyBaseLogger } from 'fastify';
import type { Transporter } from 'nodemailer';
import type { Config } from '../config.js';

export interface Mailer {
  sendSignInLink(to: string, link: string): Promise<void>;
  close(): void;
  /** True when links go to the server's log, not to an inbox (no SMTP_URL: development and tests). */
  logsLinks: boolean;
}

/** How a logged link begins, in the log and on the page that says where to look. */
export const loggedLinkLead = 'Sign-in link for';

export function createMailer(config: Config, log: FastifyBaseLogger): Mailer {
  const { smtpUrl, mailFrom } = config.humans;
  if (!smtpUrl) {
    // Production refuses to start this way (config.ts): a live link in a log is a key anyone reading it can use.
    if (config.env === 'production' && config.humans.emailSignIn)
      throw new Error('createMailer: no SMTP_URL in production');
    if (config.humans.emailSignIn)
      log.warn(
        `E-mail sign-in has no SMTP_URL: sign-in links are written to this log ("${loggedLinkLead} ...")`,
      );
    return {
      logsLinks: true,
      async sendSignInLink(to, link) {
        const line = `${loggedLinkLead} ${to} (not mailed: no SMTP_URL): ${link}`;
        log.info({ to, sign_in_link: link }, line);
        // In development the log is a terminal full of JSON: the link also stands on a line of its own.
        if (config.env === 'development') process.stderr.write(`\n  ${line}\n\n`);
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
    logsLinks: false,
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
