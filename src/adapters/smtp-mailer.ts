/** The Mailer port over nodemailer: how site reports are e-mailed through the operator's SMTP relay. */
import { Readable } from 'node:stream';
import type { Transporter } from 'nodemailer';
import { loadOnce } from '../services/kit/load-once.js';
import { MailOutcomeUnknown, MailRejected, type MailMessage, type Mailer } from '../reports/report-ports.js';

/** nodemailer, imported at the first message (src/services/kit/load-once.ts). */
const loadNodemailer = loadOnce(async () => {
  const [nodemailer, composer] = await Promise.all([
    import('nodemailer'),
    import('nodemailer/lib/mail-composer'),
  ]);
  return { nodemailer: nodemailer.default, MailComposer: composer.default };
});

export interface SmtpSettings {
  /** `smtp://user:pass@host:port` (STARTTLS when offered) or `smtps://…` (TLS from the start). */
  readonly url: string;
  /** The From address: `Atoll Reports <reports@example.com>`. */
  readonly from: string;
  /** Connections kept open to the relay at once. */
  readonly maxConnections: number;
  readonly timeoutMs: number;
}

/**
 * Sends through an SMTP relay with nodemailer's pooled transport (a few connections reused
 * across messages). A 5xx answer is the relay's final refusal (RFC 5321 §4.2.1): MailRejected,
 * not retried; a 4xx answer, or a connection that failed before the whole message went over,
 * may pass later (plain Error). A connection that failed after the whole message went over and
 * before the relay's answer leaves it unknown whether the relay took it: MailOutcomeUnknown, so
 * that the caller does not send it twice.
 */
export function createSmtpMailer(settings: SmtpSettings): Mailer {
  let created: Transporter | undefined;
  const pooledTransport = (nodemailer: Awaited<ReturnType<typeof loadNodemailer>>['nodemailer']) =>
    (created ??= nodemailer.createTransport({
      url: settings.url,
      pool: true,
      maxConnections: settings.maxConnections,
      // The pool sends a message again on a new connection when its connection closed mid-send,
      // even after the relay may have accepted it: a second copy. Our caller decides instead.
      maxRequeues: 0,
      connectionTimeout: settings.timeoutMs,
      greetingTimeout: settings.timeoutMs,
      socketTimeout: settings.timeoutMs,
      disableFileAccess: true,
      disableUrlAccess: true,
    }));
  return {
    async send(message: MailMessage) {
      const { nodemailer, MailComposer } = await loadNodemailer();
      const transport = pooledTransport(nodemailer);
      const composed = await new MailComposer({
        from: settings.from,
        to: { name: message.to.name, address: message.to.email },
        subject: message.subject,
        html: message.html,
        text: message.text,
        messageId: message.messageId,
        attachments: message.attachments.map((a) => ({
          filename: a.filename,
          contentType: a.contentType,
          content: a.content,
        })),
        disableFileAccess: true,
        disableUrlAccess: true,
      })
        .compile()
        .build();
      // The relay can accept a message only after its end (the closing "."), which is written after
      // this stream ended: until then a failure leaves the message undelivered for sure.
      const handed = { wholeMessage: false };
      const raw = new Readable({
        read() {
          this.push(composed);
          this.push(null);
        },
      });
      raw.once('end', () => {
        handed.wholeMessage = true;
      });
      try {
        await transport.sendMail({
          envelope: { from: settings.from, to: [message.to.email] },
          raw,
        });
      } catch (error) {
        const code = (error as { responseCode?: unknown }).responseCode;
        if (typeof code === 'number' && code >= 500 && code < 600)
          throw new MailRejected(`the mail relay refused the message: ${(error as Error).message}`);
        if (typeof code !== 'number' && handed.wholeMessage)
          throw new MailOutcomeUnknown(
            `the connection to the mail relay failed after the whole message was handed over and before the relay answered (${(error as Error).message}); the relay may have accepted it, so it is not sent again (it can never arrive twice)`,
            { cause: error },
          );
        throw new Error(`the mail relay did not take the message: ${(error as Error).message}`, {
          cause: error,
        });
      }
    },
    close() {
      created?.close();
    },
  };
}
