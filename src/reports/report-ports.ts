/**
 * The ports the reports feature needs: a renderer and a mailer (the SMTP adapter implements it).
 */
import type { ReportContent } from '../domain/reports/report-content.js';

/** Draws a report (src/reports/report-renderer.ts). */
export interface ReportRenderer {
  html(content: ReportContent): string;
  pdf(content: ReportContent): Promise<Buffer>;
}

export interface MailMessage {
  readonly to: { readonly name: string; readonly email: string };
  readonly subject: string;
  readonly html: string;
  readonly text: string;
  readonly attachments: readonly {
    readonly filename: string;
    readonly contentType: string;
    readonly content: Buffer;
  }[];
  /** Stable per report and recipient (`<…@host>`), so that a resent message can be recognised as the same. */
  readonly messageId: string;
}

/** The relay refused the message for good (an SMTP 5xx answer): retrying would not help. */
export class MailRejected extends Error {
  override readonly name = 'MailRejected';
}

/**
 * The connection failed after the whole message was handed over and before the relay answered it:
 * the relay may have accepted it. Sending it again could deliver it twice, so it is not retried.
 */
export class MailOutcomeUnknown extends Error {
  override readonly name = 'MailOutcomeUnknown';
}

/**
 * Sends mail through the configured relay; throws MailRejected, MailOutcomeUnknown, or any other
 * error for a failure worth retrying (the relay did not get the whole message, or refused it for now).
 */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}
