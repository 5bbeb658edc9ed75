/** The Mailer port over nodemailer: how site reports are e-mailed through the operator's SMTP relay. */
import nodemailer from 'nodemailer';
import { MailRejected, type MailMessage, type Mailer } from '../reports/report-ports.js';

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
 * not retried; anything else (4xx, a refused or dropped connection, a timeout) may pass later.
 */
export function createSmtpMailer(settings: SmtpSettings): Mailer {
  const transport = nodemailer.createTransport({
    url: settings.url,
    pool: true,
    maxConnections: settings.maxConnections,
    connectionTimeout: settings.timeoutMs,
    greetingTimeout: settings.timeoutMs,
    socketTimeout: settings.timeoutMs,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return {
    async send(message: MailMessage) {
      try {
        await transport.sendMail({
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
        });
      } catch (error) {
        const code = (error as { responseCode?: unknown }).responseCode;
        if (typeof code === 'number' && code >= 500 && code < 600)
          throw new MailRejected(`the mail relay refused the message: ${(error as Error).message}`);
        throw new Error(`the mail relay did not take the message: ${(error as Error).message}`, {
          cause: error,
        });
      }
    },
    close() {
      transport.close();
    },
  };
}
